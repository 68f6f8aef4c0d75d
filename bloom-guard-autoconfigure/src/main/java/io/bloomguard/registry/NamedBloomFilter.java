package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.core.RebuildableBloomFilter;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A configured filter as the application sees it: its name and spec, its lifecycle {@link FilterState}, its
 * counters, and the backend filter that holds its bits. This is the bean injected by filter name.
 *
 * <p>Usage: {@code @Qualifier("users") NamedBloomFilter users; ... if (users.put(url)) crawl(url);}
 * (With bloom-guard switched off, {@code put} answers {@code true} for every key: see {@link DisabledBloomFilter}.)
 *
 * <p>It answers "might contain" for every key until it is {@link FilterState#READY}: a filter that is still
 * loading, failed to load or is disabled has not seen every key, and must not be trusted to reject one.
 *
 * <p>Larger than one class should be: it is the one object the guard, the preload, the endpoint and user code share
 * for a filter, and what it does holds together (each state answers every operation); the parts that stand alone,
 * such as its recovery, its growth, its history and its writes under way, are classes of their own.
 */
public final class NamedBloomFilter implements BloomFilter {

    /** Keys per backend batch when {@link #putAll} is given an {@code Iterable} that is not a collection. */
    static final int ITERABLE_BATCH = 10_000;

    private final FilterSpec spec;
    private final BloomFilter backend;
    /** How this kind of backend carries out the lifecycle: chosen once, so no operation asks the backend's type. */
    private final BackendLifecycle lifecycle;
    private final FilterCounters counters = new FilterCounters();
    private final UnkeyedWrites unkeyedWrites = new UnkeyedWrites();
    private final FilterHistory history = new FilterHistory(java.time.Clock.systemUTC());
    /** Whether what a rebuild read may replace the live keys: asked by every rebuild, whoever starts it. */
    private final RebuildGate rebuildGate;
    /** For a local filter that can rebuild: how it recovers from {@code FAILED}; {@code null} otherwise. */
    private final @Nullable FailedFilterRecovery recovery;
    /** {@code growth: rebuild}: how it grows past its capacity; {@code null} for other policies. */
    private final @Nullable GrowthRebuilds growth;
    private final AtomicReference<FilterState> state;

    /** A filter with a background thread of its own for its rebuilds (made only if it rebuilds in the background). */
    public NamedBloomFilter(FilterSpec spec, BloomFilter backend, FilterState initialState) {
        this(spec, backend, initialState, new BackgroundRebuilds());
    }

    /**
     * @param background where it rebuilds itself to grow or recover: the registry's, shared by its filters and
     *                   closed with the application context
     */
    public NamedBloomFilter(FilterSpec spec, BloomFilter backend, FilterState initialState,
            BackgroundRebuilds background) {
        this.spec = spec;
        this.backend = backend;
        this.lifecycle = BackendLifecycle.of(backend);
        this.state = new AtomicReference<>(initialState);
        history.since(initialState);
        this.rebuildGate = new RebuildGate(spec, lifecycle::countedKeys, java.time.Clock.systemUTC());
        RebuildableBloomFilter rebuiltHere = lifecycle.rebuiltHere();
        this.recovery = (rebuiltHere != null) ? new FailedFilterRecovery(this, rebuiltHere, background) : null;
        this.growth = (spec.sizing().growth() == GrowthPolicy.REBUILD)
                ? new GrowthRebuilds(this, lifecycle.rebuildable(), background) : null;
        lifecycle.onBuilt((startup, keys, startNanos, failure) -> history.recordLoad(startup
                ? FilterHistory.LoadKind.PRELOAD : FilterHistory.LoadKind.REBUILD, startNanos, keys, "key source",
                failure));
        lifecycle.onFillRead(() -> { // a shared filter's, with the keys other instances put
            rebuildGate.counted(lifecycle.lastCountedKeys());
            if (growth != null) {
                growth.keysAdded();
            }
        });
    }

    public String name() {
        return spec.name();
    }

    public FilterSpec spec() {
        return spec;
    }

    /**
     * Where the filter is now: its own lifecycle, and for a shared filter that has started, what this instance
     * sees of the store (loading elsewhere, missing, mismatched, stale).
     */
    public FilterState state() {
        FilterState own = state.get();
        return (own == FilterState.READY) ? lifecycle.stateWhenReady() : own;
    }

    /**
     * Why the filter is in its {@link #state()}, when that is something to act on: for {@code ACCESS_DENIED}, what
     * the store refused and what to change; for {@code UNREACHABLE}, since when and the last failure. Otherwise
     * {@code null}.
     */
    public @Nullable String stateReason() {
        return (state.get() == FilterState.READY) ? lifecycle.reasonWhenReady() : null;
    }

    /** Moves the filter to another lifecycle state; a disabled filter stays disabled. */
    public void transitionTo(FilterState next) {
        state.updateAndGet(current -> (current == FilterState.DISABLED) ? current : next);
        history.since(state()); // the moment of the change, not of the first look at it
    }

    /**
     * Marks a load as complete: {@code LOADING} becomes {@code READY}. Any other state stays, above all
     * {@code FAILED} set meanwhile by a write whose key did not reach the filter: a load that started before
     * that write cannot vouch for its key.
     *
     * @return whether the filter is now ready
     */
    public boolean finishLoading() {
        boolean ready = state.compareAndSet(FilterState.LOADING, FilterState.READY);
        history.since(state());
        if (ready && growth != null) {
            growth.keysAdded(); // the key source may hold more keys than it was sized for
        }
        return ready;
    }

    /**
     * Records that a key which belongs in the filter is missing (a write's key could not be computed or stored),
     * so that the filter stops rejecting until it holds every key again. A shared filter is marked stale in its
     * store: no instance trusts it until it is rebuilt from the key source, which follows on its own (if the store
     * cannot be reached, this instance stops trusting it at once, and marks it once the store is back). A local
     * filter turns {@code FAILED} and lets every call through until it has rebuilt itself from its key source in
     * the background (with none, until the application restarts).
     *
     * @return whether the filter recovers by itself (a rebuild from its key source)
     */
    public boolean markIncomplete(String reason) {
        if (lifecycle.markIncompleteInStore(reason)) {
            return true;
        }
        if (recovery != null) {
            recovery.lost();
        }
        transitionTo(FilterState.FAILED);
        return recovery != null && recovery.start();
    }

    /**
     * The keys a rebuild of a local filter reads (a shared filter is handed its own when it starts).
     */
    public void keySource(KeyFeed feed) {
        lifecycle.keySource(rebuildGate.guard(feed));
    }

    /**
     * The keys a shared filter is started with, and rebuilds from, read through the checks every rebuild passes (see
     * {@link #heldRebuild()}): {@code feed} for a filter with key sources, none for one filled by puts alone.
     */
    public KeyFeed sharedKeyFeed(KeyFeed feed) {
        return rebuildGate.guard(spec.writes().putsOnly() ? KeyFeed.EMPTY : feed);
    }

    /**
     * The last rebuild that read far fewer keys than the filter holds ({@code rebuild.hold-below}) and was held back
     * rather than swapped in, until a rebuild is swapped in; {@code null} when none is.
     */
    public @Nullable HeldRebuild heldRebuild() {
        return rebuildGate.held();
    }

    /**
     * Rebuilds the filter and swaps the new keys in however few they are: for an operator who has checked that a
     * {@linkplain #heldRebuild() held-back} rebuild's key source is right (the rows were deleted).
     *
     * @return keys read from the key source
     * @throws io.bloomguard.core.RebuildRefusedException for a filter filled by puts alone
     */
    public long confirmRebuild() {
        rebuildGate.confirmNext();
        return rebuild();
    }

    /**
     * Starts rebuilding a {@code FAILED} local filter from its key source in the background, with back-off.
     *
     * @return whether it will recover by itself (a local filter with a key source)
     */
    public boolean recover() {
        return recovery != null && state.get() == FilterState.FAILED && recovery.start();
    }

    /**
     * Whether a "no" from this filter may be acted on: it is ready (and, shared, complete in its store). The guard
     * also asks {@link #unkeyedWrites()} before it rejects.
     */
    public boolean trustedToReject() {
        return state.get() == FilterState.READY && lifecycle.storeTrusted();
    }

    /**
     * Rebuilds the filter from its key source beside the live copy and swaps it in: deleted keys drop out, and
     * keys added meanwhile are kept. Blocks until done.
     *
     * A {@code FAILED} local filter that lost no key meanwhile is {@code READY} again afterwards.
     *
     * @return keys read from the key source
     * @throws IllegalStateException when the filter has no key source, a rebuild is under way (for a shared filter:
     *                               another instance is loading it), or bloom-guard is switched off
     * @throws io.bloomguard.core.RebuildRefusedException when the filter is filled by puts alone, or the rebuild read
     *                               far fewer keys than the filter holds and was held back ({@link #heldRebuild()})
     */
    public long rebuild() {
        return rebuild(0);
    }

    /** {@link #rebuild()} sized for {@code expectedSize} keys: how {@code growth: rebuild} grows it. */
    long rebuildFor(long expectedSize) {
        return rebuild(expectedSize);
    }

    /** @param expectedSize keys to size it for, or 0 to keep its size */
    private long rebuild(long expectedSize) {
        if (state.get() == FilterState.DISABLED) {
            throw new IllegalStateException("Filter '" + name() + "' is disabled (bloom-guard.enabled=false) and"
                    + " holds no bits; there is nothing to rebuild");
        }
        rebuildGate.checkMayRebuild();
        long lossesBefore = (recovery != null) ? recovery.losses() : 0;
        long keys;
        try {
            keys = lifecycle.rebuild(expectedSize); // recorded in the history as the backend reports its builds
        }
        catch (RebuildRefusedException ex) {
            throw ex; // says what to do itself
        }
        catch (UnsupportedOperationException ex) {
            throw new UnsupportedOperationException("Filter '" + name() + "': " + ex.getMessage(), ex);
        }
        catch (IllegalStateException ex) {
            throw (recovery != null) ? new IllegalStateException("Filter '" + name() + "': " + ex.getMessage(),
                    ex.getCause()) : ex;
        }
        if (recovery != null && recovery.losses() == lossesBefore) {
            state.compareAndSet(FilterState.FAILED, FilterState.READY); // it holds every key now
            history.since(state());
        }
        if (growth != null) {
            growth.rebuilt(); // keys may have outgrown it again meanwhile
        }
        return keys;
    }

    /** Its last preload and rebuild, and since when it is in its state. */
    public FilterHistory history() {
        return history;
    }

    /** When the filter entered its current {@link #state()}, as far as this instance has seen. */
    public java.time.Instant stateSince() {
        return history.since(state());
    }

    /** Live counters, for the guard to record outcomes. */
    public FilterCounters counters() {
        return counters;
    }

    /**
     * The counters, and for a shared filter when its estimates ({@link #approximateElementCount()},
     * {@link #expectedFpp()}) were last read and whether they are stale. Never waits on a shared store.
     */
    public FilterStats stats() {
        return lifecycle.stats(counters.snapshot());
    }

    /** The writes under way whose rows may be visible before their keys are in this filter. */
    public UnkeyedWrites unkeyedWrites() {
        return unkeyedWrites;
    }

    /** The backend's own answer, whatever the state: for the guard, which checks the state itself. */
    public boolean backendMightContain(Object key) {
        return backend.mightContain(key);
    }

    /**
     * {@link #backendMightContain} without waiting on a shared store: answered at once by a local backend.
     *
     * @throws IllegalArgumentException for a key of an unsupported type
     */
    public CompletableFuture<Boolean> backendMightContainAsync(Object key) {
        return lifecycle.mightContainAsync(key);
    }

    @Override
    public boolean mightContain(Object key) {
        if (!trustedToReject()) {
            // A key the filter could never hold is refused whatever the state, not only once the filter is READY:
            // a call that works while the filter loads must not start failing in production.
            KeyCanonicalizer.hash(key, 0);
            return true;
        }
        int visibleWrites = unkeyedWrites.visibleCount(); // before the bits, as the guard reads it
        if (backend.mightContain(key)) {
            return true;
        }
        if (visibleWrites == 0 && !unkeyedWrites.writingOnThisThread()) {
            return false;
        }
        // As the guard: "absent" only once the writes whose rows may be visible have put their keys.
        return unkeyedWrites.writingOnThisThread() || !unkeyedWrites.awaitVisibleWrites() || backend.mightContain(key);
    }

    @Override
    public boolean put(Object key) {
        boolean added = backend.put(key);
        counters.puts(1); // after the backend took it: a key it refused was not put
        if (added && growth != null) {
            growth.keysAdded();
        }
        return added;
    }

    /**
     * Takes one put of a key back from a counting filter ({@code type: counting}), for a record that was deleted: a
     * key put more times than removed is always still in. Remove only keys that were put: a key that was never put
     * but passes the filter (a false positive) takes counts that belong to other keys, and may make one of them
     * absent.
     *
     * <p>While the filter loads, a remove is left out: the preload may not have read the key yet, and then never will
     * (its row is gone), so there would be nothing of it to take back. The key stays in as a false positive until the
     * next rebuild. The same holds for a filter being rebuilt, whose new filter the remove does not reach.
     *
     * @return whether the key's counts were taken back; {@code false} when the filter certainly did not hold it (it
     * changed nothing), while it loads, or with bloom-guard switched off
     * @throws UnsupportedOperationException for a plain filter ({@code type: bloom}), naming the property to set
     * @throws IllegalArgumentException      for a key of an unsupported type, in every state
     */
    @Override
    public boolean remove(Object key) {
        if (spec.sizing().type() != FilterType.COUNTING) {
            throw new UnsupportedOperationException("Filter '" + name() + "' cannot remove keys: it is a plain Bloom"
                    + " filter, whose bits do not record how many keys set them; declare it with"
                    + " bloom-guard.filters." + name() + ".type: counting");
        }
        FilterState now = state.get();
        if (now == FilterState.LOADING || now == FilterState.DISABLED) {
            KeyCanonicalizer.hash(key, 0); // refused in every state, as by mightContain
            return false;
        }
        return backend.remove(key);
    }

    /**
     * Adds every key with the backend's own batch (one script per shard for Redis, not one call per key). An
     * {@code Iterable} that is not a collection (keys read from a cursor) goes in {@value #ITERABLE_BATCH} keys
     * at a time, never all in memory.
     */
    @Override
    public long putAll(Iterable<?> keys) {
        if (keys instanceof Collection<?> collection) { // a @BloomPut result arrives as a list already
            long added = backend.putAll(collection);
            counters.puts(collection.size());
            if (added > 0 && growth != null) {
                growth.keysAdded();
            }
            return added;
        }
        long added = 0;
        List<Object> batch = new ArrayList<>(ITERABLE_BATCH);
        for (Object key : keys) {
            batch.add(key);
            if (batch.size() == ITERABLE_BATCH) {
                added += putAll(batch);
                batch = new ArrayList<>(ITERABLE_BATCH); // a new one: a backend may keep what it could not write yet
            }
        }
        return batch.isEmpty() ? added : added + putAll(batch);
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        if (!trustedToReject()) {
            keys.forEach(key -> KeyCanonicalizer.hash(key, 0)); // refused in every state, as by mightContain
            boolean[] all = new boolean[keys.size()];
            Arrays.fill(all, true);
            return all;
        }
        int visibleWrites = unkeyedWrites.visibleCount();
        boolean[] answers = backend.mightContainAll(keys);
        if (visibleWrites == 0 && !unkeyedWrites.writingOnThisThread() || allTrue(answers)) {
            return answers;
        }
        if (unkeyedWrites.writingOnThisThread() || !unkeyedWrites.awaitVisibleWrites()) {
            Arrays.fill(answers, true);
            return answers;
        }
        return backend.mightContainAll(keys);
    }

    private static boolean allTrue(boolean[] answers) {
        for (boolean answer : answers) {
            if (!answer) {
                return false;
            }
        }
        return true;
    }

    /**
     * Keys estimated from the bits set. A shared filter answers the value its maintenance last read from the store,
     * without waiting on it (and without failing while it is down): {@link #stats()} says when it was read.
     */
    @Override
    public long approximateElementCount() {
        return lifecycle.approximateElementCount();
    }

    /** False-positive probability at the current fill; for a shared filter as last read, as {@link #approximateElementCount()}. */
    @Override
    public double expectedFpp() {
        return lifecycle.expectedFpp();
    }

    /**
     * Set bits over bits. Counted exactly where the backend counts them (a local filter); for a shared filter,
     * derived from the key estimate its maintenance last read, so that asking never waits on the store.
     */
    public double fillRatio() {
        java.util.OptionalLong counted = backend.countedSetBits();
        long bits = backend.bitSize();
        if (bits == 0) {
            return 0.0; // disabled: no bits at all
        }
        if (counted.isPresent()) {
            return (double) counted.getAsLong() / bits;
        }
        long keys = approximateElementCount();
        if (keys == Long.MAX_VALUE) {
            return 1.0; // every bit set: the estimate is unbounded
        }
        return Math.min(1.0, sizing().expectedSetBits(keys) / bits);
    }

    /**
     * Whether it holds more keys than its {@link #capacity()}: it then lets more absent keys through than its
     * error rate. A filter that grows is over capacity only until it has grown, or when it cannot grow (no key source
     * to rebuild from, a size beyond what its backend holds). For a shared filter, as last read.
     */
    public boolean overCapacity() {
        return state.get() != FilterState.DISABLED && approximateElementCount() > capacity();
    }

    /** Whether {@code growth: rebuild} is rebuilding it larger right now. */
    public boolean growing() {
        return growth != null && growth.growing();
    }

    /** Keys it holds at its error rate: its expected size, larger once it has grown. */
    @Override
    public long capacity() {
        return backend.capacity();
    }

    @Override
    public long bitSize() {
        return backend.bitSize();
    }

    @Override
    public long byteSize() {
        return backend.byteSize();
    }

    @Override
    public int hashCount() {
        return backend.hashCount();
    }

    @Override
    public int layerCount() {
        return backend.layerCount();
    }

    @Override
    public FilterSizing sizing() {
        return backend.sizing();
    }

    @Override
    public int seed() {
        return backend.seed();
    }

    /** The backend filter holding the bits. */
    public BloomFilter backend() {
        return backend;
    }

    @Override
    public String toString() {
        return "NamedBloomFilter[" + spec.name() + ", " + state.get() + ", " + backend + "]";
    }
}
