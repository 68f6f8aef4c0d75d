package io.bloomguard.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;

/**
 * Where a shared filter's change feed stands, kept in the filter's store beside its bits: which instance consumes
 * the feed (a lease, so that one does while the others follow) and the position it reached, so that whichever
 * instance consumes next resumes there with nothing missed.
 *
 * <p>Usage: {@code if (state.lead(me, ttl)) { feed.start(state.read().position(), sink); } ... state.save(me,
 * position, currentAsOf);}
 *
 * @since 0.1.0
 */
public interface SharedFeedState {

    /**
     * Takes the lease when nobody holds it or it expired, or renews it when {@code instance} holds it.
     *
     * @return whether {@code instance} holds it now
     */
    boolean lead(String instance, Duration ttl);

    /** Gives the lease up if {@code instance} holds it, so that another instance takes over at once. */
    void release(String instance);

    /**
     * Saves where the feed stands, if {@code instance} still holds the lease (a consumer that lost it saves nothing).
     *
     * @param position where to resume; {@code null} keeps the saved one
     * @param currentAsOf every change committed before it is in the filter
     * @return whether it was saved
     */
    boolean save(String instance, @Nullable String position, Instant currentAsOf);

    /** What was saved last; its fields are {@code null} before anything was. */
    Stored read();

    /**
     * @param position where the feed resumes
     * @param currentAsOf how current the filter is, as its consumer last saved
     * @param leader the instance holding the lease, if any
     */
    record Stored(@Nullable String position, @Nullable Instant currentAsOf, @Nullable String leader) {
    }
}
