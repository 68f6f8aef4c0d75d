package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link NamedBloomFilter}'s lifecycle state on this instance, the moves between states, and the history that
 * records since when it is in one. Its own state is {@code LOADING}, {@code READY}, {@code FAILED} or
 * {@code DISABLED}; a shared filter that is {@code READY} here shows what its store says of it.
 */
final class FilterStateMachine {

    private final AtomicReference<FilterState> state;
    private final FilterHistory history = new FilterHistory(Clock.systemUTC());
    /** What a shared store says of a filter that is {@code READY} here. */
    private final BackendLifecycle lifecycle;
    /**
     * Lost keys whose writes' transactions are still open: no rebuild can have read their rows, so until they end the
     * filter is not trusted here and does not turn {@code READY} again.
     */
    private final AtomicInteger openLosses = new AtomicInteger();
    /** The change feed the filter follows, if any: while it is behind, the filter may not be trusted. */
    private volatile @Nullable FeedStatus feed;

    FilterStateMachine(FilterState initialState, BackendLifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.state = new AtomicReference<>(initialState);
        history.since(initialState);
    }

    /** Its own state, whatever its store says. */
    FilterState own() {
        return state.get();
    }

    /** Its own state, and for a filter {@code READY} here, what its store says of it. */
    FilterState state() {
        FilterState own = state.get();
        return (own == FilterState.READY) ? lifecycle.stateWhenReady() : own;
    }

    /** Why it is in its {@link #state()}, when that is something to act on; otherwise {@code null}. */
    @Nullable String reason() {
        return (state.get() == FilterState.READY) ? lifecycle.reasonWhenReady() : null;
    }

    /** Moves to another state; a disabled filter stays disabled. */
    void transitionTo(FilterState next) {
        state.updateAndGet(current -> (current == FilterState.DISABLED) ? current : next);
        history.since(state()); // the moment of the change, not of the first look at it
    }

    /**
     * {@code LOADING} becomes {@code READY}; any other state stays.
     *
     * @return whether it is now ready
     */
    boolean finishLoading() {
        boolean ready = state.compareAndSet(FilterState.LOADING, FilterState.READY);
        history.since(state());
        return ready;
    }

    /** {@code FAILED} becomes {@code READY}: a rebuild begun after its last lost key went through. */
    void recovered() {
        if (lossesOpen()) {
            return; // its rebuild could not read the rows of writes still open
        }
        state.compareAndSet(FilterState.FAILED, FilterState.READY); // it holds every key now
        history.since(state());
    }

    /** Whether a "no" may be acted on: it is ready (and, shared, complete in its store). */
    boolean trustedToReject() {
        FeedStatus following = feed;
        return state.get() == FilterState.READY && lifecycle.storeTrusted() && !lossesOpen()
                && (following == null || following.trusted());
    }

    void follow(FeedStatus feed) {
        this.feed = feed;
    }

    @Nullable FeedStatus feed() {
        return feed;
    }

    /** A write lost a key in a transaction that is still open; {@link #lossEnded()} once it has ended. */
    void lossOpened() {
        openLosses.incrementAndGet();
    }

    void lossEnded() {
        openLosses.decrementAndGet();
    }

    /** Whether a write that lost a key is still in an open transaction. */
    boolean lossesOpen() {
        return openLosses.get() > 0;
    }

    FilterHistory history() {
        return history;
    }

    /** When it entered its current {@link #state()}, as far as this instance has seen. */
    Instant since() {
        return history.since(state());
    }
}
