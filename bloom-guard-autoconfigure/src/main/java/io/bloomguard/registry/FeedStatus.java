package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * How current a filter's change feed keeps it ({@code bloom-guard.filters.NAME.feed.*}): what the health, the
 * endpoint and the meters show, and whether the filter may reject while the feed is behind.
 *
 * <p>Usage: {@code registry.get("users").feed().ifPresent(feed -> log.info("lag {}", feed.lag()));}
 *
 * @since 0.1.0
 */
public interface FeedStatus {

    /** What the feed reads: {@code "jdbc polling every 1s"}. */
    String description();

    /** Where the feed stands on this instance. */
    State state();

    /**
     * How far behind the filter is: the time since the moment before which every committed change is in the filter;
     * {@code null} until the feed has first caught up.
     */
    @Nullable Duration lag();

    /** {@code feed.max-lag}: past it the filter counts as behind. */
    Duration maxLag();

    /** Whether the lag is past {@link #maxLag()}, or unknown (the feed has not caught up yet). */
    default boolean behind() {
        Duration lag = lag();
        return lag == null || lag.compareTo(maxLag()) > 0;
    }

    /** Whether the filter keeps rejecting while the feed is behind ({@code feed.when-behind: keep}). */
    boolean keepsRejectingWhenBehind();

    /** Whether this instance may act on the filter's "absent" as far as the feed goes. */
    default boolean trusted() {
        return keepsRejectingWhenBehind() || !behind();
    }

    /** Where the feed resumes, in its own form; {@code null} before it has delivered anything. */
    @Nullable String position();

    /** When the feed last failed to read, and why; {@code null} once it reads again. */
    @Nullable String failure();

    /** The last time a change was applied; {@code null} before. */
    @Nullable Instant lastChange();

    /** Changes applied so far on this instance: adds, removes, and deletes left in (see {@code Counts}). */
    Counts counts();

    /**
     * Listens to each applied change's lag, from its commit (or stamp) to its key in the filter: for a timer.
     * Replaces the previous listener.
     */
    void onChangeLag(Consumer<Duration> listener);

    /** Where the feed stands on this instance. */
    enum State {
        /** Started, not caught up yet. */
        STARTING,
        /** Reading the changes and applying them (on a shared filter: this instance consumes). */
        RUNNING,
        /** Another instance consumes the shared filter's feed; this one reads how current it is. */
        FOLLOWING,
        /** Cannot read at the moment, and retrying. */
        FAILING,
        /** Stopped. */
        STOPPED
    }

    /**
     * @param added keys put
     * @param removed keys removed from a counting filter, their rows deleted
     * @param deletesKept deleted rows whose keys were left in (a plain filter, or a delete that a rebuild may have
     *     already dropped): false positives until the next rebuild
     * @param lost times the feed lost its position and the filter was rebuilt
     */
    record Counts(long added, long removed, long deletesKept, long lost) {
    }
}
