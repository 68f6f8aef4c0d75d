package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.core.SharedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

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
 * <p>It is the one object the guard, the preload, the endpoint and user code share for a filter, and hands each of
 * its jobs to a class of its own: {@link FilterStateMachine} its lifecycle state and history, {@link FilterChecks}
 * its checks (which wait for the {@link UnkeyedWrites writes under way}), {@link FilterWrites} its puts and removes,
 * {@link FilterRebuilds} its rebuilds (with their gate, recovery and growth). What it reports of its backend's bits
 * (their layout, its capacity, how full it is) it answers itself, never waiting on a shared store.
 *
 * <p>Why one class of over 400 lines: it is the {@link BloomFilter} contract of one named filter, every method a line
 * or two that hands the call to the collaborator above with the filter's state; the size and fill answers were once
 * split into a superclass for the line count alone, which only made the bean two files to read. Most of its length
 * is Javadoc: what each method promises, and which methods are internal (the lifecycle steps the preload and the
 * guard drive), since an application holds this bean.
 *
 * @since 0.1.0
 */
public final class NamedBloomFilter implements BloomFilter {

    /** Keys per backend batch when {@link #putAll} is given an {@code Iterable} that is not a collection. */
    static final int ITERABLE_BATCH = 10_000;

    private static final Log logger = LogFactory.getLog(NamedBloomFilter.class);

    private final FilterSpec spec;
    private final BloomFilter backend;
    /** How this kind of backend carries out the lifecycle: chosen once, so no operation asks the backend's type. */
    private final BackendLifecycle lifecycle;
    private final FilterCounters counters = new FilterCounters();
    private final FilterStateMachine states;
    private final FilterRebuilds rebuilds;
    private final FilterChecks checks;
    private final FilterWrites writes;
    /** What the guard does with its answers now: the spec's until switched at runtime; read on every check. */
    private volatile GuardMode mode;

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
        this.states = new FilterStateMachine(initialState, lifecycle);
        this.rebuilds = new FilterRebuilds(this, spec, lifecycle, states, background);
        this.checks = new FilterChecks(backend, lifecycle, states);
        this.writes = new FilterWrites(spec, backend, counters, states, rebuilds);
        this.mode = spec.guard().mode();
    }

    public String name() {
        return spec.name();
    }

    public FilterSpec spec() {
        return spec;
    }

    /**
     * What the guard does with this filter's answers now: {@code spec().guard().mode()} until {@linkplain #switchMode
     * switched}. Every reader of the mode (the guard, health, the endpoint) reads it here.
     */
    public GuardMode mode() {
        return mode;
    }

    /**
     * Switches what the guard does with this filter's answers, from the next check on, until the application stops
     * (then {@code bloom-guard.filters.<name>.mode} holds again). Puts go in whatever the mode, so switching back to
     * {@code enforce} is safe. Logged as a warning: an audit of who weakened or restored the guard.
     *
     * @param by who or what asked, for the log (the endpoint's principal, say)
     * @return the mode it had
     */
    public GuardMode switchMode(GuardMode next, String by) {
        Objects.requireNonNull(next, "mode");
        GuardMode previous;
        synchronized (this) {
            previous = mode;
            mode = next;
        }
        logger.warn("Filter '" + name() + "' switched from mode " + lower(previous) + " to " + lower(next) + " by "
                + by + "; it is " + lower(spec.guard().mode()) + " again on restart unless bloom-guard.filters."
                + name() + ".mode is set");
        return previous;
    }

    private static String lower(GuardMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Where the filter is now: its own lifecycle, and for a shared filter that has started, what this instance
     * sees of the store (loading elsewhere, missing, mismatched, stale).
     */
    public FilterState state() {
        return states.state();
    }

    /**
     * Why the filter is in its {@link #state()}, when that is something to act on: for {@code ACCESS_DENIED}, what
     * the store refused and what to change; for {@code UNREACHABLE}, since when and the last failure. Otherwise
     * {@code null}.
     */
    public @Nullable String stateReason() {
        return states.reason();
    }

    /**
     * Moves the filter to another lifecycle state; a disabled filter stays disabled.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @hidden
     */
    public void transitionTo(FilterState next) {
        states.transitionTo(next);
    }

    /**
     * Marks a load as complete: {@code LOADING} becomes {@code READY}. Any other state stays, above all
     * {@code FAILED} set meanwhile by a write whose key did not reach the filter: a load that started before
     * that write cannot vouch for its key.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @return whether the filter is now ready
     * @hidden
     */
    public boolean finishLoading() {
        boolean ready = states.finishLoading();
        if (ready) {
            rebuilds.keysAdded(); // the key source may hold more keys than it was sized for
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
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @return whether the filter recovers by itself (a rebuild from its key source)
     * @hidden
     */
    public boolean markIncomplete(String reason) {
        return rebuilds.markIncomplete(reason);
    }

    /**
     * For a write that lost its key inside a transaction still open, before it calls {@link #markIncomplete}: the
     * write's row is not committed, so a rebuild begun now cannot read it. Until the returned end runs, once the
     * transaction has ended (however it ended), this instance does not trust the filter, and no rebuild makes it
     * {@code READY}; the end marks it incomplete again, so that the rebuild that makes it whole reads after the
     * commit.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @return what to run once the transaction has ended (it acts once)
     * @hidden
     */
    public Runnable holdIncomplete(String reason) {
        return rebuilds.holdIncomplete(reason);
    }

    /**
     * The keys a rebuild of a local filter reads (a shared filter is handed its own when it starts).
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     * @hidden
     */
    public void keySource(KeyFeed feed) {
        rebuilds.keySource(feed);
    }

    /**
     * The keys a shared filter is started with, and rebuilds from, read through the checks every rebuild passes (see
     * {@link #heldRebuild()}): {@code feed} for a filter with key sources, none for one filled by puts alone.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     * @hidden
     */
    public KeyFeed sharedKeyFeed(KeyFeed feed) {
        return rebuilds.sharedKeyFeed(feed);
    }

    /** The change feed this filter follows ({@code feed.*}), if it has one. */
    public Optional<FeedStatus> feed() {
        return Optional.ofNullable(states.feed());
    }

    /**
     * Makes the filter follow a change feed: while the feed is behind, it does not reject unless the feed keeps
     * rejecting ({@code feed.when-behind: keep}).
     *
     * <p>Internal, not API: bloom-guard's feed runner calls this once, before the filter is loaded.
     * @hidden
     */
    public void follow(FeedStatus feed) {
        states.follow(feed);
    }

    /**
     * The last rebuild that read far fewer keys than the filter holds ({@code rebuild.hold-below}) and was held back
     * rather than swapped in, until a rebuild is swapped in; {@code null} when none is.
     */
    public @Nullable HeldRebuild heldRebuild() {
        return rebuilds.held();
    }

    /**
     * Rebuilds the filter and swaps the new keys in however few they are: for an operator who has checked that a
     * {@linkplain #heldRebuild() held-back} rebuild's key source is right (the rows were deleted). The confirmation
     * is this rebuild's alone: refused before it reads (another rebuild is under way), it confirms no later rebuild,
     * which is held to {@code rebuild.hold-below} as ever.
     *
     * @return keys read from the key source
     * <p>For a filter filled by puts alone whose stored bits are gone, it creates it again empty: the operator accepts
     * that the keys put so far are lost ({@link #heldRebuild()} says it waits for this).
     *
     * @throws io.bloomguard.core.RebuildRefusedException for a filter filled by puts alone that does not wait for it
     */
    public long confirmRebuild() {
        return rebuilds.confirmRebuild();
    }

    /**
     * Starts rebuilding a {@code FAILED} local filter from its key source in the background, with back-off.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @return whether it will recover by itself (a local filter with a key source)
     * @hidden
     */
    public boolean recover() {
        return rebuilds.recover();
    }

    /**
     * Whether a "no" from this filter may be acted on: it is ready (and, shared, complete in its store). A
     * {@link #check} also waits for the {@link #unkeyedWrites() writes under way} before it answers "absent".
     */
    public boolean trustedToReject() {
        return states.trustedToReject();
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
        return rebuilds.rebuild(0);
    }

    /**
     * Starts {@link #rebuild()} (or, {@code confirmed}, {@link #confirmRebuild()}) in the background, one at a time
     * with the filters' other background rebuilds (growth, recovery), and answers at once. What is known before a
     * key is read (disabled, puts alone, no key source here) is refused at once.
     *
     * @return ends with the keys read, or with what {@code rebuild()} would have thrown
     * @throws IllegalStateException         disabled, no key source here, or the application is shutting down
     * @throws UnsupportedOperationException for a backend that cannot rebuild
     * @throws io.bloomguard.core.RebuildRefusedException for a filter filled by puts alone, unless confirmed
     */
    public CompletableFuture<Long> rebuildInBackground(boolean confirmed) {
        return rebuilds.rebuildInBackground(confirmed);
    }

    /** {@link #rebuild()} sized for {@code expectedSize} keys: how {@code growth: rebuild} grows it. */
    long rebuildFor(long expectedSize) {
        return rebuilds.rebuild(expectedSize);
    }

    /** Its last preload and rebuild, and since when it is in its state. */
    public FilterHistory history() {
        return states.history();
    }

    /** When the filter entered its current {@link #state()}, as far as this instance has seen. */
    public java.time.Instant stateSince() {
        return states.since();
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

    /**
     * The writes under way whose rows may be visible before their keys are in this filter.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @hidden
     */
    public UnkeyedWrites unkeyedWrites() {
        return checks.unkeyedWrites();
    }

    /**
     * The filter's answer for a key, by the rule every check follows: {@link CheckResult#NOT_READY} unless it is
     * {@link #trustedToReject() trusted to reject}; {@link CheckResult#ABSENT} only once the writes under way whose
     * rows may be visible have put their keys (waiting for them at most {@link UnkeyedWrites#MAX_WAIT}); undecided
     * inside a write of the calling thread's own to this filter, whose row is there and whose key is not yet.
     *
     * @throws IllegalArgumentException for a key of an unsupported type, in every state
     */
    public CheckResult check(Object key) {
        return checks.check(key, false);
    }

    /**
     * {@link #check} without blocking: the future completes once a shared store has answered and the writes under way
     * have put their keys; a local backend's answer with no write under way is in at once.
     *
     * @param inOwnWrite whether the caller (a reactive pipeline) is inside a write of its own to this filter whose key
     *                   is not in yet; the calling thread's own writes are seen without it
     * @throws IllegalArgumentException for a key of an unsupported type, in every state
     */
    public CompletableFuture<CheckResult> checkAsync(Object key, boolean inOwnWrite) {
        return checks.checkAsync(key, inOwnWrite);
    }

    /** {@link #check} for many keys, in one batch (one round trip to a shared store). */
    public BatchCheckResult checkAll(List<?> keys) {
        return checks.checkAll(keys, false);
    }

    /** {@link #checkAll(List)}, for a caller that may be inside a write of its own: see {@link #checkAsync}. */
    public BatchCheckResult checkAll(List<?> keys, boolean inOwnWrite) {
        return checks.checkAll(keys, inOwnWrite);
    }

    /**
     * The backend's own answer, whatever the state and the writes under way (as the endpoint's membership shows).
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @hidden
     */
    public boolean backendMightContain(Object key) {
        return backend.mightContain(key);
    }

    /**
     * {@link #backendMightContain} without waiting on a shared store: answered at once by a local backend.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @throws IllegalArgumentException for a key of an unsupported type
     * @hidden
     */
    public CompletableFuture<Boolean> backendMightContainAsync(Object key) {
        return lifecycle.mightContainAsync(key);
    }

    /**
     * The backend's answers for many keys, in one batch (one round trip to a shared store), whatever the state.
     *
     * <p>Internal, not API: bloom-guard's preload, guard and endpoint drive the filter through this; an application
     * that calls it can break what the guard promises (a lifecycle step out of turn can reject keys that exist).
     *
     * @hidden
     */
    public boolean[] backendMightContainAll(List<?> keys) {
        return backend.mightContainAll(keys);
    }

    @Override
    public boolean mightContain(Object key) {
        return checks.check(key, false).mightContain();
    }

    @Override
    public boolean put(Object key) {
        return writes.put(key);
    }

    /**
     * Takes one put of a key back from a counting filter ({@code type: counting}) or a cuckoo filter
     * ({@code type: cuckoo}), for a record that was deleted: a
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
        return writes.remove(key);
    }

    /**
     * {@link #remove(Object)} for a row whose delete began when the backend's build epoch was {@code epoch}
     * ({@link RebuildableBloomFilter#buildEpoch()}): the key is left in, a false positive, if a rebuild began or swapped
     * in since, whose generation may never have counted it.
     */
    public boolean remove(Object key, long epoch) {
        return writes.remove(key, epoch);
    }

    /**
     * Adds every key with the backend's own batch (one script per shard for Redis, not one call per key). An
     * {@code Iterable} that is not a collection (keys read from a cursor) goes in {@value #ITERABLE_BATCH} keys
     * at a time, never all in memory.
     */
    @Override
    public long putAll(Iterable<?> keys) {
        return writes.putAll(keys);
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return checks.checkAll(keys, false).mightContain();
    }

    /**
     * Whether it holds more keys than its {@link #capacity()}: it then lets more absent keys through than its
     * error rate. A filter that grows is over capacity only until it has grown, or when it cannot grow (no key source
     * to rebuild from, a size beyond what its backend holds). For a shared filter, as last read.
     */
    public boolean overCapacity() {
        return states.own() != FilterState.DISABLED && approximateElementCount() > capacity();
    }

    /** Whether {@code growth: rebuild} is rebuilding it larger right now. */
    public boolean growing() {
        return rebuilds.growing();
    }

    /**
     * Keys estimated from the bits set. A shared filter answers the value its maintenance last read from the store,
     * without waiting on it (and without failing while it is down): {@link NamedBloomFilter#stats()} says when it
     * was read.
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
        OptionalLong counted = backend.countedSetBits();
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

    /**
     * What a backend shared by instances through a store tells of it (status, details, refusal, start), whatever the
     * store; empty for a filter whose bits are in this JVM.
     */
    public Optional<SharedBloomFilter> shared() {
        return lifecycle.shared();
    }

    /** The backend filter holding the bits. */
    public BloomFilter backend() {
        return backend;
    }

    @Override
    public String toString() {
        return "NamedBloomFilter[" + spec.name() + ", " + states.own() + ", " + backend + "]";
    }
}
