package io.bloomguard.observation;

/**
 * Which of the guard's checks are {@link BloomGuardObservation#CHECK} observations ({@code bloom-guard.observations.checks}).
 * Off unless asked for: an observed check costs about ten times a rejected call, and a flood of rejected calls is when
 * the guard matters most.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public enum CheckObservations {

    /** None: no observation is made on the guard's path, whatever the application's {@code ObservationRegistry}. */
    OFF,

    /** Every check. */
    ON,

    /**
     * Only the checks made inside an observation (a traced request, a {@code Mono} subscribed to under one): a check
     * becomes a span of that trace, and a flood of calls outside any observation costs nothing more.
     */
    UNDER_PARENT
}
