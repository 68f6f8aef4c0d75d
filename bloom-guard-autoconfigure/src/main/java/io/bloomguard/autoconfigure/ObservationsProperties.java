package io.bloomguard.autoconfigure;

import io.bloomguard.observation.CheckObservations;

/**
 * {@code bloom-guard.observations.*}: which of the guard's work is a Micrometer observation.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class ObservationsProperties {

    /**
     * Which guarded checks are 'bloomguard.check' observations, given an ObservationRegistry: off, on (every check),
     * or under-parent (only checks made inside another observation, such as a traced request).
     */
    private CheckObservations checks = CheckObservations.OFF;

    public CheckObservations getChecks() {
        return checks;
    }

    public void setChecks(CheckObservations checks) {
        this.checks = checks;
    }
}
