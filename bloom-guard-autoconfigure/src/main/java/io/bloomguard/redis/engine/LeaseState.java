package io.bloomguard.redis.engine;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * A shard's lease state as its metadata stores it ({@code lease}) and its channel announces it ({@code "L <shard>
 * <state>"}), in the order Redis processed the switch: {@code off}; {@code on <ms>}, readers may hold leases of that
 * many milliseconds and writers wait; {@code draining <n> <ms>}, no new leases, writers still wait; or none stored (a
 * filter created afresh, or one no leased instance has switched yet), which a leased writer takes for draining.
 *
 * @param value the stored text, {@code ""} when none is stored
 */
record LeaseState(String value) {

    static final LeaseState NONE = new LeaseState("");

    static LeaseState of(@Nullable Object stored) {
        return (stored == null || stored.toString().isEmpty()) ? NONE : new LeaseState(stored.toString());
    }

    static LeaseState on(Duration read) {
        return new LeaseState("on " + read.toMillis());
    }

    boolean isOn() {
        return value.startsWith("on ");
    }

    boolean isOff() {
        return value.equals("off");
    }

    /** The read lease it was switched on with; {@code null} for off or none. */
    @Nullable Duration read() {
        if (isOff() || value.isEmpty()) {
            return null;
        }
        return Duration.ofMillis(Long.parseLong(value.substring(value.lastIndexOf(' ') + 1)));
    }
}
