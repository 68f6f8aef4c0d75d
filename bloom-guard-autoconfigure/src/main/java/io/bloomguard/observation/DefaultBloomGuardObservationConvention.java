package io.bloomguard.observation;

import io.bloomguard.guard.CheckOutcome;
import io.bloomguard.observation.BloomGuardObservation.CheckKeyNames;
import io.bloomguard.registry.SkipReason;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import java.util.EnumMap;
import java.util.Map;

/**
 * Names a check {@code bloomguard.check} (so its timer sits beside the {@code bloomguard.*} meters), contextually
 * {@code bloom-guard check <filter>}, with the key values {@code filter}, {@code outcome} and {@code reason}
 * ({@link CheckKeyNames}).
 *
 * @since 0.1.0
 */
public class DefaultBloomGuardObservationConvention implements BloomGuardObservationConvention {

    private static final String NAME = "bloomguard.check";

    // Made once: the key values are asked for twice per check (at its start and its stop).
    private static final Map<CheckOutcome, KeyValue> OUTCOMES = new EnumMap<>(CheckOutcome.class);
    private static final Map<SkipReason, KeyValue> REASONS = new EnumMap<>(SkipReason.class);
    private static final KeyValue UNKNOWN_OUTCOME = CheckKeyNames.OUTCOME.withValue("unknown");
    private static final KeyValue NO_REASON = CheckKeyNames.REASON.withValue("none");

    static {
        for (CheckOutcome outcome : CheckOutcome.values()) {
            OUTCOMES.put(outcome, CheckKeyNames.OUTCOME.withValue(outcome.tag()));
        }
        for (SkipReason reason : SkipReason.values()) {
            REASONS.put(reason, CheckKeyNames.REASON.withValue(reason.tag()));
        }
    }

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
                (outcome != null) ? OUTCOMES.get(outcome) : UNKNOWN_OUTCOME,
                (reason != null) ? REASONS.get(reason) : NO_REASON);
    }
}
