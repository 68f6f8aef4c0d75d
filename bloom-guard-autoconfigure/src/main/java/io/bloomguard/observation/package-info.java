/**
 * Micrometer Observations of the guard's checks, for traces: when {@code bloom-guard.observations.checks} asks for it
 * ({@link io.bloomguard.observation.CheckObservations}), each checked call, or each one inside another observation, is
 * a {@code bloomguard.check} observation tagged with its filter and, once decided, its outcome
 * ({@link io.bloomguard.observation.BloomGuardObservation}).
 */
@NullMarked
package io.bloomguard.observation;

import org.jspecify.annotations.NullMarked;
