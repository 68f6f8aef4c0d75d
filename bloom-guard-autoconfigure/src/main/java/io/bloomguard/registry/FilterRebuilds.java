package io.bloomguard.registry;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.core.RebuildableBloomFilter;
import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Every rebuild of a {@link NamedBloomFilter}, whoever starts it (an operator, a schedule, growth, self-recovery, a
 * shared filter's own maintenance), and what sets one off: the keys its rebuilds read, through the
 * {@link RebuildGate}; its recovery from {@code FAILED} ({@link FailedFilterRecovery}); its growth past its capacity
 * ({@link GrowthRebuilds}); and what a key lost on its way in does to it. Each build is recorded in its history.
 */
final class FilterRebuilds {

    private final FilterSpec spec;
    /** How this kind of backend carries out a rebuild. */
    private final BackendLifecycle lifecycle;
    private final FilterStateMachine states;
    /** Whether what a rebuild read may replace the live keys: asked by every rebuild, whoever starts it. */
    private final RebuildGate rebuildGate;
    /** For a local filter that can rebuild: how it recovers from {@code FAILED}; {@code null} otherwise. */
    private final @Nullable FailedFilterRecovery recovery;
    /** {@code growth: rebuild}: how it grows past its capacity; {@code null} for other policies. */
    private final @Nullable GrowthRebuilds growth;
    /** The registry's thread for rebuilds in the background: one at a time, beside growth and recovery. */
    private final BackgroundRebuilds background;

    FilterRebuilds(NamedBloomFilter filter, FilterSpec spec, BackendLifecycle lifecycle, FilterStateMachine states,
            BackgroundRebuilds background) {
        this.spec = spec;
        this.lifecycle = lifecycle;
        this.states = states;
        this.background = background;
        this.rebuildGate = new RebuildGate(spec, lifecycle::countedKeys, lifecycle::storedBefore, Clock.systemUTC());
        RebuildableBloomFilter rebuiltHere = lifecycle.rebuiltHere();
        this.recovery = (rebuiltHere != null)
                ? new FailedFilterRecovery(filter, rebuiltHere, background, states::lossesOpen) : null;
        this.growth = (spec.sizing().growth() == GrowthPolicy.REBUILD)
                ? new GrowthRebuilds(filter, lifecycle.rebuildable(), background) : null;
        FilterHistory history = states.history();
        lifecycle.onBuilt((startup, keys, startNanos, failure) -> history.recordLoad(startup
                ? FilterHistory.LoadKind.PRELOAD : FilterHistory.LoadKind.REBUILD, startNanos, keys, "key source",
                failure));
        lifecycle.onFillRead(() -> { // a shared filter's, with the keys other instances put
            rebuildGate.counted(lifecycle.lastCountedKeys());
            keysAdded();
        });
    }

    /** Keys went in (a put that changed the filter, a load, a shared filter's fill read again): it may grow. */
    void keysAdded() {
        if (growth != null) {
            growth.keysAdded();
        }
    }

    /** Whether {@code growth: rebuild} is rebuilding it larger right now. */
    boolean growing() {
        return growth != null && growth.growing();
    }

    /** The keys a rebuild of a local filter reads (a shared filter is handed its own when it starts). */
    void keySource(KeyFeed feed) {
        lifecycle.keySource(rebuildGate.guard(feed));
    }

    /** The keys a shared filter is started with and rebuilds from, read through the gate; none if puts-only. */
    KeyFeed sharedKeyFeed(KeyFeed feed) {
        return rebuildGate.guard(spec.writes().putsOnly() ? KeyFeed.EMPTY : feed);
    }

    /** The last rebuild held back for reading too few keys, until one is swapped in; {@code null} when none is. */
    @Nullable HeldRebuild held() {
        return rebuildGate.held();
    }

    /**
     * Rebuilds it, swapped in however few keys it reads: an operator has checked the key source. The confirmation is
     * this rebuild's alone: refused (another is under way), it confirms nothing later.
     */
    long confirmRebuild() {
        return rebuildGate.confirmed(() -> rebuild(0));
    }

    /** Starts rebuilding a {@code FAILED} local filter in the background; whether it will recover by itself. */
    boolean recover() {
        return recovery != null && states.own() == FilterState.FAILED && recovery.start();
    }

    /**
     * A key that belongs in the filter is missing: a shared filter is marked stale in its store; a local one turns
     * {@code FAILED} and rebuilds itself, if it can.
     *
     * @return whether it recovers by itself (a rebuild from its key source)
     */
    boolean markIncomplete(String reason) {
        if (lifecycle.markIncompleteInStore(reason)) {
            return true;
        }
        if (recovery != null) {
            recovery.lost();
        }
        states.transitionTo(FilterState.FAILED);
        return recovery != null && recovery.start();
    }

    /**
     * Holds a filter that a write whose transaction is still open is about to {@linkplain #markIncomplete mark}: the
     * write's row is not committed, so no rebuild can read it yet. Until the returned end runs (once the transaction
     * has ended, however it ended) the filter is not trusted here, nor made {@code READY} by a rebuild. The end
     * marks it again, so that the rebuild that makes it whole (here, or for a shared filter on any instance) begins
     * after the commit and reads the row.
     *
     * @return what to run once the transaction has ended; it acts once, however often it runs
     */
    Runnable holdIncomplete(String reason) {
        states.lossOpened();
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                states.lossEnded(); // before the mark: the recovery it starts must find the hold gone
                markIncomplete(reason);
            }
        };
    }

    /**
     * Starts {@link #rebuild(long) rebuild(0)} (or, {@code confirmed}, {@link #confirmRebuild()}) on the background
     * thread, once what can be known before reading a key says it may run: refused at once otherwise.
     *
     * @return ends with the keys read, or the failure
     * @throws IllegalStateException         disabled, no key source here, or the background thread is closed
     * @throws UnsupportedOperationException for a backend that cannot rebuild
     * @throws io.bloomguard.core.RebuildRefusedException for a filter filled by puts alone (unless confirmed)
     */
    CompletableFuture<Long> rebuildInBackground(boolean confirmed) {
        checkNotDisabled();
        if (spec.backend() instanceof FilterSpec.Redis redis && redis.key() != null) {
            throw new UnsupportedOperationException("Filter '" + spec.name() + "' guards key '" + redis.key()
                    + "', which another program creates and fills: bloom-guard does not rebuild it");
        }
        if (!confirmed) { // a confirmation may create a puts-only filter again empty, with no key source
            rebuildGate.checkMayRebuild();
            RebuildableBloomFilter rebuildable = lifecycle.rebuildable();
            if (rebuildable == null) {
                throw new UnsupportedOperationException("Filter '" + spec.name() + "' cannot be rebuilt");
            }
            if (!rebuildable.hasKeySource()) {
                throw new IllegalStateException("Filter '" + spec.name() + "' has no key source to rebuild from"
                        + " here (declare preload.sql, or a BloomKeySource or ReactiveBloomKeySource bean for it)");
            }
        }
        LongSupplier rebuild = confirmed ? this::confirmRebuild : () -> rebuild(0);
        CompletableFuture<Long> done = new CompletableFuture<>();
        boolean accepted = background.execute(() -> {
            try {
                done.complete(rebuild.getAsLong());
            }
            catch (RuntimeException | Error ex) {
                done.completeExceptionally(ex);
            }
        });
        if (!accepted) {
            throw new IllegalStateException("Filter '" + spec.name() + "' cannot rebuild: the application is"
                    + " shutting down");
        }
        return done;
    }

    /** @param expectedSize keys to size it for, or 0 to keep its size */
    long rebuild(long expectedSize) {
        checkNotDisabled();
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
            throw new UnsupportedOperationException("Filter '" + spec.name() + "': " + ex.getMessage(), ex);
        }
        catch (IllegalStateException ex) {
            throw (recovery != null) ? new IllegalStateException("Filter '" + spec.name() + "': " + ex.getMessage(),
                    ex.getCause()) : ex;
        }
        if (recovery != null && recovery.losses() == lossesBefore) {
            states.recovered();
        }
        if (growth != null) {
            growth.rebuilt(); // keys may have outgrown it again meanwhile
        }
        return keys;
    }

    private void checkNotDisabled() {
        if (states.own() == FilterState.DISABLED) {
            throw new IllegalStateException("Filter '" + spec.name() + "' is disabled (bloom-guard.enabled=false)"
                    + " and holds no bits; there is nothing to rebuild");
        }
    }
}
