package io.bloomguard.observation;

import io.bloomguard.guard.CheckOutcome;
import io.bloomguard.registry.SkipReason;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link BloomGuardObservation#CHECK} observation knows of its check: the filter, and once the guard has
 * decided, the outcome and why the filter did not decide it, if it did not (or that a reactive subscriber cancelled
 * before it had decided). Never the key.
 *
 * @since 0.1.0
 */
public class BloomGuardObservationContext extends Observation.Context {

    private final String filterName;
    private volatile @Nullable CheckOutcome outcome;
    private volatile @Nullable SkipReason reason;
    private volatile boolean cancelled;

    public BloomGuardObservationContext(String filterName) {
        this.filterName = filterName;
    }

    public String getFilterName() {
        return filterName;
    }

    /** What the guard did with the call, or {@code null} while it has not decided (or never did: cancelled). */
    public @Nullable CheckOutcome getOutcome() {
        return outcome;
    }

    public void setOutcome(@Nullable CheckOutcome outcome) {
        this.outcome = outcome;
    }

    /** Why the filter did not decide the call, or {@code null} when it did. */
    public @Nullable SkipReason getReason() {
        return reason;
    }

    public void setReason(@Nullable SkipReason reason) {
        this.reason = reason;
    }

    /** Whether a reactive subscriber cancelled before the guard had decided: the check then has no outcome. */
    public boolean isCancelled() {
        return cancelled;
    }

    public void setCancelled() {
        this.cancelled = true;
    }
}
