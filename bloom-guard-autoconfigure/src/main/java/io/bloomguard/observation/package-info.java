/**
 * Micrometer Observations of the guard's checks, for traces: each checked call is a {@code bloomguard.check}
 * observation tagged with its filter and what the guard did with it ({@link io.bloomguard.observation.BloomGuardObservation}).
 * Only the auto-configuration decides whether it exists.
 */
@NullMarked
package io.bloomguard.observation;

import org.jspecify.annotations.NullMarked;
