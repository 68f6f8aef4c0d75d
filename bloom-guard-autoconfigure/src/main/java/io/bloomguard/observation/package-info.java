/**
 * Micrometer Observations of the guard's checks, for traces: each checked call is a {@code bloomguard.check}
 * observation tagged with its filter and outcome ({@link io.bloomguard.observation.BloomGuardObservation}).
 */
@NullMarked
package io.bloomguard.observation;

import org.jspecify.annotations.NullMarked;
