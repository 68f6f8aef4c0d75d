package io.bloomguard.core;

/**
 * A backend whose bits live in a store shared by every instance of an application, such as Redis. It is
 * loaded once for all instances, can be rebuilt beside the live copy, and may be unable to answer (not
 * loaded, mismatched, stale): only {@link #trustedToReject()} says whether its "no" may be acted on.
 *
 * <p>Usage: {@code filter.start(feed); ... if (filter.trustedToReject() && !filter.mightContain(id)) ...}
 *
 * @since 0.1.0
 */
public interface SharedBloomFilter extends RebuildableBloomFilter, AutoCloseable {

    /**
     * Joins the shared filter: loads it from {@code feed} here if no instance has (blocking until it is
     * loaded), or follows the instance that is loading it. The feed is kept for later rebuilds (after the store
     * lost the bits, or when another loader died). Never throws for an unreachable store: the filter keeps
     * trying in the background and passes calls through meanwhile.
     */
    StartOutcome start(KeyFeed feed);

    /**
     * Joins the shared filter as an instance with no key source: it never loads or rebuilds the filter, because
     * it could only build it empty, and every instance would then trust that empty filter and reject every key.
     * It waits for an instance that has a source to load it, and passes calls through meanwhile. A filter meant
     * to start empty and be filled by puts alone declares a key source that yields no keys.
     */
    StartOutcome follow();

    /**
     * Records that a key which belongs in the filter is missing: a write's key could not be computed or stored.
     * No instance may then trust the stored filter until it has been rebuilt from the key source, which holds
     * the key; the rebuild follows on its own, by an instance with a key source. When the store cannot be reached,
     * this instance stops trusting the filter at once and records the mark in the store once it is reachable.
     */
    void markIncomplete(String reason);

    /** What this instance sees of the shared filter now. */
    SharedFilterStatus status();

    /**
     * Why the filter has its {@link #status()}, for a status a user must act on ({@code ACCESS_DENIED}: what the
     * store refused and what to change; {@code UNREACHABLE}: the last failure); otherwise {@code null}.
     */
    default @org.jspecify.annotations.Nullable String statusReason() {
        return null;
    }

    /**
     * The store's refusal of this instance ({@code ACCESS_DENIED}), as the exception that should stop the startup, with
     * what to change; {@code null} when the store does not refuse it.
     */
    default @org.jspecify.annotations.Nullable RuntimeException refusal() {
        return null;
    }

    /**
     * Where this filter's change feed stands in the store, shared by every instance: which one consumes the feed and
     * the position it reached. A store that keeps none throws {@link UnsupportedOperationException}.
     */
    default SharedFeedState feedState() {
        throw new UnsupportedOperationException(this + ": its store keeps no change feed state");
    }

    /**
     * {@link #approximateElementCount()} and {@link #expectedFpp()} as last read from the store, without waiting on
     * it: they never fail, and say when the store could not be read. This default reads them now.
     */
    default FillEstimate lastEstimate() {
        return new FillEstimate(approximateElementCount(), expectedFpp(), java.time.Instant.now(), false);
    }

    /**
     * {@link #mightContain} without waiting for the store: for callers that must not block, such as a guarded
     * method returning a {@code Mono}. The future fails as {@code mightContain} would throw (the store did not
     * answer in time, or is unreachable); a key of an unsupported type is refused at once, by throwing.
     */
    java.util.concurrent.CompletableFuture<Boolean> mightContainAsync(Object key);

    /**
     * Adds this instance could not write to the store yet (it did not answer), kept in memory for replay: they rise
     * during an outage and fall to 0 once the store takes them. Never waits on the store; this default has none.
     */
    default int pendingAdds() {
        return 0;
    }

    /**
     * Batches of adds the store took whose replicas did not confirm them in time, with
     * {@code bloom-guard.redis.wait-for-replicas}; counts up from 0 since this instance started. Never waits on the
     * store; this default counts none.
     */
    default long unconfirmedReplicaBatches() {
        return 0;
    }

    /** Whether a "no" from {@link #mightContain} may be acted on now. */
    default boolean trustedToReject() {
        return status() == SharedFilterStatus.READY;
    }

    /**
     * Builds a new generation from the key source beside the live one and swaps it in atomically; keys added
     * meanwhile, from any instance, reach both. Blocks until done.
     *
     * @return number of keys read from the source
     * @throws IllegalStateException when another instance holds the load lock
     */
    @Override
    long rebuild();

    /**
     * Whether anything of this filter was ever stored, as far as this instance can tell: the store still shows it (its
     * bits may be gone), records that it was lost, or this instance saw it live. A filter filled by puts alone is
     * created empty only while this is {@code false}; once it was stored, creating it empty again waits for an
     * operator's confirmation. A store wiped whole before any instance that saw the filter looked again cannot say.
     */
    default boolean storedBefore() {
        return false;
    }

    /** Whether this instance was handed a key source when it started (it may only follow, else). */
    @Override
    default boolean hasKeySource() {
        return true;
    }

    /**
     * Stops background work, hands the store what this instance still owes it (adds it could not write yet, or
     * else a mark that the stored filter is incomplete), within a bounded time, and releases what it holds there.
     * What it cannot hand over is logged.
     */
    @Override
    void close();

    /**
     * What an operator may see of the store (generation, keys, breakers), as last read: never waits on it, never
     * shows the seed.
     */
    SharedFilterDetails details();

    /**
     * Tells {@code listener} how long each single-key check sent to the store took, answered, failed or timed out;
     * replaces the one before. Checks a breaker refuses are not sent, and not reported.
     */
    default void onCheckLatency(CheckLatencyListener listener) {
    }

    /** Hears how long single-key checks take in the store; called on the checking thread, so it must not block. */
    @FunctionalInterface
    interface CheckLatencyListener {

        /** Hears nothing: the default. */
        CheckLatencyListener NO_OP = nanos -> { };

        /** A check sent to the store ended after {@code nanos} nanoseconds. */
        void checked(long nanos);
    }

    /**
     * Tells {@code listener}, on a background thread, each time this instance has read the filter's fill from the store
     * again ({@link #lastEstimate()}): keys added by other instances show there, not in this instance's puts.
     * Replaces the one before; the listener must not block.
     */
    default void onFillRead(Runnable listener) {
    }

    /** Tells {@code listener} of every build of the stored filter this instance makes from now on. */
    default void onBuilt(BuildListener listener) {
    }

    /** Hears of builds of the stored filter made by this instance: its load at startup, and every rebuild. */
    @FunctionalInterface
    interface BuildListener {

        /**
         * A build ended.
         *
         * @param startup    whether it was the load at startup (otherwise a rebuild)
         * @param keys       keys read from the key source
         * @param startNanos {@code System.nanoTime()} when it began
         * @param failure    why it failed, or {@code null} if the new filter is live
         */
        void built(boolean startup, long keys, long startNanos, @org.jspecify.annotations.Nullable String failure);
    }

    /** What {@link #start} did. */
    enum StartOutcome {
        /** This instance loaded the filter. */
        LOADED_HERE,
        /** The stored filter was already complete. */
        ALREADY_LOADED,
        /** Another instance is loading it; this one passes calls through until it is done. */
        LOADING_ELSEWHERE,
        /** Not loaded, and this instance has no key source to load it: it waits for one that has. */
        WAITING_FOR_A_LOADER,
        /** The stored filter does not match this instance's configuration. */
        MISMATCHED,
        /** The store could not be reached; the filter keeps trying. */
        UNREACHABLE,
        /**
         * The store refuses this instance's credentials or one of its commands ({@link SharedFilterStatus#ACCESS_DENIED}):
         * a configuration mistake the application should not start with.
         */
        ACCESS_DENIED
    }
}
