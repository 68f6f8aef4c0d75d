package io.bloomguard.observation;

import io.bloomguard.guard.CheckOutcome;
import io.bloomguard.observation.BloomGuardObservation.CheckKeyNames;
import io.bloomguard.registry.SkipReason;
import io.micrometer.common.KeyValues;

/**
 * Names a check {@code bloomguard.check} (so its timer sits beside the {@code bloomguard.*} meters), contextually
 * {@code bloom-guard check <filter>}, with the key values {@code filter}, {@code outcome} and {@code reason}
 * ({@link CheckKeyNames}).
 */
public class DefaultBloomGuardObservationConvention implements BloomGuardObservationConvention {

    private static final String NAME = "bloomguard.check";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(BloomGuardObservationContext context) {
        return "bloom-guard check " + context.getFilterName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(BloomGuardObservationContext context) {
        CheckOutcome outcome = context.getOutcome();
        SkipReason reason = context.getReason();
        return KeyValues.of(CheckKeyNames.FILTER.withValue(context.getFilterName()),
                CheckKeyNames.OUTCOME.withValue((outcome != null) ? outcome.tag() : "unknown"),
                CheckKeyNames.REASON.withValue((reason != null) ? reason.tag() : "none"));
    }
}
