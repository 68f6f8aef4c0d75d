package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.core.SharedBloomFilter;
import org.jspecify.annotations.Nullable;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * What a {@link NamedBloomFilter}'s lifecycle asks of its backend, one interface for both kinds, chosen once when the
 * filter is made: a local backend (bits in this JVM, whose state is the named filter's own) or a shared one (a store
 * with a status of its own, built once for every instance). The rules (what may replace the live keys, when a "no" may
 * be acted on) stay with the named filter and its {@link RebuildGate}; this says how each kind carries them out.
 */
sealed interface BackendLifecycle permits LocalBackendLifecycle, SharedBackendLifecycle {

    static BackendLifecycle of(BloomFilter backend) {
        return (backend instanceof SharedBloomFilter shared) ? new SharedBackendLifecycle(shared)
                : new LocalBackendLifecycle(backend);
    }

    /** The backend, if it is shared by instances through a store; empty for one whose bits are in this JVM. */
    Optional<SharedBloomFilter> shared();

    /** What a filter that is {@code READY} on this instance is: {@code READY}, or what its store says of it. */
    FilterState stateWhenReady();

    /** Why the store puts it in that state, when that is something to act on; otherwise {@code null}. */
    @Nullable String reasonWhenReady();

    /** Whether the store trusts its bits to reject (a local backend always does). */
    boolean storeTrusted();

    /**
     * Marks the filter incomplete for every instance, in its store.
     *
     * @return whether it was marked: not without a store (local), nor when the store refused the mark
     */
    boolean markIncompleteInStore(String reason);

    /** Hands a local backend the keys its rebuilds read; a shared one is handed them when it starts. */
    void keySource(KeyFeed feed);

    /** The backend, if it rebuilds in this JVM and so recovers from {@code FAILED} here; {@code null} otherwise. */
    @Nullable RebuildableBloomFilter rebuiltHere();

    /** The backend, if it can rebuild at another size (to grow); {@code null} otherwise. */
    @Nullable RebuildableBloomFilter rebuildable();

    /**
     * Rebuilds it from its key source beside the live filter, and swaps it in; blocks until done. Each build, this one
     * or a shared filter's own, is told to {@link #onBuilt}.
     *
     * @param expectedSize keys to size it for, or 0 to keep its size
     */
    long rebuild(long expectedSize);

    /** Hears every build of the filter: its preload (shared) and rebuilds. */
    void onBuilt(SharedBloomFilter.BuildListener listener);

    /** Hears every read of a shared filter's fill in its store (keys put by other instances too). */
    void onFillRead(Runnable listener);

    /** Keys estimated from the bits, never waiting on a store (for a shared filter, as last read). */
    long approximateElementCount();

    /** False-positive probability at the current fill, as {@link #approximateElementCount()}. */
    double expectedFpp();

    /** {@code counted}, with when a shared filter's estimates were last read and whether they are stale. */
    FilterStats stats(FilterStats counted);

    /** Whether anything of it was ever stored: see {@link SharedBloomFilter#storedBefore()}; never for a local one. */
    default boolean storedBefore() {
        return false;
    }

    /** Keys the live filter holds, counted now (a shared one, in its store); empty when it has no live filter. */
    OptionalLong countedKeys();

    /** {@link #countedKeys()} as last counted, never waiting on a store. */
    OptionalLong lastCountedKeys();

    /** The backend's answer for a key, without waiting on a store: a local one answers at once. */
    CompletableFuture<Boolean> mightContainAsync(Object key);
}
