package io.bloomguard.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and key values of the guard's check observations. Declare a bean of this type to replace
 * {@link DefaultBloomGuardObservationConvention}; extending it keeps what it does.
 *
 * <p>Usage: {@code @Bean BloomGuardObservationConvention checks() { return new DefaultBloomGuardObservationConvention() { ... }; }}
 *
 * @since 0.1.0
 */
public interface BloomGuardObservationConvention extends ObservationConvention<BloomGuardObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof BloomGuardObservationContext;
    }
}
