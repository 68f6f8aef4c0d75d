package io.bloomguard.observation;

import io.bloomguard.guard.CheckOutcome;
import io.bloomguard.observation.BloomGuardObservation.CheckKeyNames;
import io.bloomguard.observation.BloomGuardObservation.CheckOutcomeKeyNames;
import io.bloomguard.registry.SkipReason;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Names a check {@code bloomguard.check} (so its timer sits beside the {@code bloomguard.*} meters), contextually
 * {@code bloom-guard check <filter>}, with the low-cardinality key value {@code filter} ({@link CheckKeyNames}) from
 * its start, and once it stops the high-cardinality ones {@code outcome} and {@code reason}
 * ({@link CheckOutcomeKeyNames}): on the span, not on the timer, whose counts by outcome would repeat
 * {@code bloomguard.checks}. Override {@link #getLowCardinalityKeyValues} to put them on the timer too.
 *
 * @since 0.1.0
 */
public class DefaultBloomGuardObservationConvention implements BloomGuardObservationConvention {

    private static final String NAME = "bloomguard.check";

    // Made once: the key values are asked for at each check's start and stop.
    private static final KeyValues[][] DECIDED = new KeyValues[CheckOutcome.values().length][SkipReason.values().length + 1];
    private static final KeyValues CANCELLED = KeyValues.of(CheckOutcomeKeyNames.OUTCOME.withValue("cancelled"),
            CheckOutcomeKeyNames.REASON.withValue("none"));

    static {
        for (CheckOutcome outcome : CheckOutcome.values()) {
            KeyValue outcomeValue = CheckOutcomeKeyNames.OUTCOME.withValue(outcome.tag());
            DECIDED[outcome.ordinal()][0] = KeyValues.of(outcomeValue, CheckOutcomeKeyNames.REASON.withValue("none"));
            for (SkipReason reason : SkipReason.values()) {
                DECIDED[outcome.ordinal()][reason.ordinal() + 1] = KeyValues.of(outcomeValue,
                        CheckOutcomeKeyNames.REASON.withValue(reason.tag()));
            }
        }
    }

    // The configured filters' names: a few.
    private final Map<String, KeyValues> filters = new ConcurrentHashMap<>();

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
        return filters.computeIfAbsent(context.getFilterName(),
                filter -> KeyValues.of(CheckKeyNames.FILTER.withValue(filter)));
    }

    /** The outcome and reason once the check has stopped; none before: they are not known at its start. */
    @Override
    public KeyValues getHighCardinalityKeyValues(BloomGuardObservationContext context) {
        CheckOutcome outcome = context.getOutcome();
        if (outcome != null) {
            SkipReason reason = context.getReason();
            return DECIDED[outcome.ordinal()][(reason != null) ? reason.ordinal() + 1 : 0];
        }
        return context.isCancelled() ? CANCELLED : KeyValues.empty();
    }
}
