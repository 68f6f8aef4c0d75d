package io.bloomguard.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations bloom-guard makes, and their key values.
 *
 * <p>Usage: {@code BloomGuardObservation.CHECK.observation(customConvention, defaultConvention, () -> context, registry)}.
 *
 * @since 0.1.0
 */
public enum BloomGuardObservation implements ObservationDocumentation {

    /**
     * A guarded call's check, from its start to the guard's decision (the method's own work is not in it): named
     * {@code bloomguard.check}, contextually {@code bloom-guard check <filter>}. A reactive call's check starts at
     * subscription. Made only when {@code bloom-guard.observations.checks} asks for it. The key is never a key value:
     * it has no bound, and may be personal data.
     */
    CHECK {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultBloomGuardObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return CheckKeyNames.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return CheckOutcomeKeyNames.values();
        }
    };

    /**
     * The low-cardinality key values of {@link #CHECK}, known from its start: tags of the span and of any meter a
     * handler makes of it (with Spring Boot's metrics, the {@code bloomguard.check} timer and its long task timer).
     */
    public enum CheckKeyNames implements KeyName {

        /** The filter's name. */
        FILTER {
            @Override
            public String asString() {
                return "filter";
            }
        }
    }

    /**
     * What the guard decided, known only when {@link #CHECK} stops: key values of the span, not of meters. Their
     * values are few, but the {@code bloomguard.checks} counter already counts the checks by filter, outcome and
     * reason, and a timer with the same tags would count them again; a convention that returns them among its
     * low-cardinality key values puts them on the timer too.
     */
    public enum CheckOutcomeKeyNames implements KeyName {

        /**
         * What the guard did: {@code rejected}, {@code passed}, {@code skipped}, {@code shadow_rejected} (shadow
         * mode: the filter said absent, the method ran), {@code failed} (the backend failed and
         * {@code on-backend-failure: throw} passed the failure on), or {@code cancelled} (a reactive subscriber
         * cancelled before the guard had decided).
         */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        },

        /**
         * Why the filter did not decide the call: {@code none} when it did; {@code not_ready}, {@code mode_off},
         * {@code no_key}, {@code backend_failure}, {@code write_pending} otherwise.
         */
        REASON {
            @Override
            public String asString() {
                return "reason";
            }
        }
    }
}
