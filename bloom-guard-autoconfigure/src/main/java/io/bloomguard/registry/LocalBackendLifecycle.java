package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.core.SharedBloomFilter;
import org.jspecify.annotations.Nullable;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** A local backend's lifecycle: its bits are in this JVM, its state is the named filter's, it rebuilds here. */
final class LocalBackendLifecycle implements BackendLifecycle {

    private final BloomFilter backend;
    private final @Nullable RebuildableBloomFilter rebuildable;
    private volatile SharedBloomFilter.BuildListener builds = (startup, keys, startNanos, failure) -> { };

    LocalBackendLifecycle(BloomFilter backend) {
        this.backend = backend;
        this.rebuildable = (backend instanceof RebuildableBloomFilter canRebuild) ? canRebuild : null;
    }

    @Override
    public Optional<SharedBloomFilter> shared() {
        return Optional.empty();
    }

    @Override
    public FilterState stateWhenReady() {
        return FilterState.READY;
    }

    @Override
    public @Nullable String reasonWhenReady() {
        return null;
    }

    @Override
    public boolean storeTrusted() {
        return true;
    }

    @Override
    public boolean markIncompleteInStore(String reason) {
        return false;
    }

    @Override
    public void keySource(KeyFeed feed) {
        if (rebuildable != null) {
            rebuildable.keySource(feed);
        }
    }

    @Override
    public @Nullable RebuildableBloomFilter rebuiltHere() {
        return rebuildable;
    }

    @Override
    public @Nullable RebuildableBloomFilter rebuildable() {
        return rebuildable;
    }

    @Override
    public long rebuild(long expectedSize) {
        if (rebuildable == null) {
            throw new UnsupportedOperationException("it cannot be rebuilt: " + backend);
        }
        long start = System.nanoTime();
        long keys;
        try {
            keys = (expectedSize > 0) ? rebuildable.rebuild(expectedSize) : rebuildable.rebuild();
        }
        catch (RuntimeException ex) {
            builds.built(false, 0, start, String.valueOf(ex.getMessage()));
            if (ex instanceof RebuildRefusedException refused) {
                throw refused; // says what to do itself
            }
            throw new IllegalStateException("it could not be rebuilt: " + ex.getMessage(), ex);
        }
        builds.built(false, keys, start, null);
        return keys;
    }

    @Override
    public void onBuilt(SharedBloomFilter.BuildListener listener) {
        builds = listener;
    }

    @Override
    public void onFillRead(Runnable listener) {
        // Nothing to hear: its fill is counted as keys go in.
    }

    @Override
    public long approximateElementCount() {
        return backend.approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return backend.expectedFpp();
    }

    @Override
    public FilterStats stats(FilterStats counted) {
        return counted;
    }

    @Override
    public OptionalLong countedKeys() {
        return OptionalLong.of(backend.approximateElementCount());
    }

    @Override
    public OptionalLong lastCountedKeys() {
        return countedKeys();
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return CompletableFuture.completedFuture(backend.mightContain(key));
    }
}
