package io.bloomguard.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * {@code rebuild.*} of {@code bloom-guard.defaults} and of each filter: when a filter is rebuilt from its key source on
 * a schedule, dropping deleted keys.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class RebuildProperties {

    /**
     * Cron expression (Spring's six fields: second minute hour day month weekday) of scheduled rebuilds, e.g.
     * "0 0 4 * * *" for 4 a.m. every day. None by default. On redis, one instance runs each.
     */
    private @Nullable String cron;

    /** Time zone the cron expression is read in, e.g. "UTC" or "Europe/Paris"; the JVM's by default. */
    private @Nullable String zone;

    /**
     * Share of the live filter's estimated keys below which a rebuild's keys are held back instead of swapped in (an
     * empty table after a failed migration, a wrong schema), until an operator confirms them; 0 to swap in any
     * rebuild. 0.5 by default.
     */
    private @Nullable Double holdBelow;

    public @Nullable Double getHoldBelow() {
        return holdBelow;
    }

    public void setHoldBelow(@Nullable Double holdBelow) {
        this.holdBelow = holdBelow;
    }

    public @Nullable String getCron() {
        return cron;
    }

    public void setCron(@Nullable String cron) {
        this.cron = cron;
    }

    public @Nullable String getZone() {
        return zone;
    }

    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }
}
