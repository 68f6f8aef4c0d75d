package io.bloomguard.registry;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterStatus;
import org.jspecify.annotations.Nullable;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A shared backend's lifecycle: its store has a status of its own, which a filter {@code READY} on this instance
 * follows; it is built once for every instance, by whichever holds its load lock, and reports each build itself.
 */
final class SharedBackendLifecycle implements BackendLifecycle {

    private final SharedBloomFilter shared;
    private final Optional<SharedBloomFilter> asShared;

    SharedBackendLifecycle(SharedBloomFilter shared) {
        this.shared = shared;
        this.asShared = Optional.of(shared);
    }

    @Override
    public Optional<SharedBloomFilter> shared() {
        return asShared;
    }

    @Override
    public FilterState stateWhenReady() {
        return switch (shared.status()) {
            case READY -> FilterState.READY;
            case MISMATCHED -> FilterState.MISMATCHED;
            case STALE -> FilterState.STALE;
            case ACCESS_DENIED -> FilterState.ACCESS_DENIED;
            case UNREACHABLE -> FilterState.UNREACHABLE;
            default -> FilterState.LOADING;
        };
    }

    @Override
    public @Nullable String reasonWhenReady() {
        return shared.statusReason();
    }

    @Override
    public boolean storeTrusted() {
        return shared.trustedToReject();
    }

    @Override
    public boolean markIncompleteInStore(String reason) {
        try {
            shared.markIncomplete(reason);
            return true;
        }
        catch (RuntimeException ex) {
            // Not an unreachable store (the backend owes the mark then): a fault of its own. At least this instance
            // stops trusting the filter.
            return false;
        }
    }

    @Override
    public void keySource(KeyFeed feed) {
        // Handed its keys when it starts (SharedBloomFilter.start).
    }

    @Override
    public @Nullable RebuildableBloomFilter rebuiltHere() {
        return null;
    }

    @Override
    public RebuildableBloomFilter rebuildable() {
        return shared;
    }

    @Override
    public long rebuild(long expectedSize) {
        return (expectedSize > 0) ? shared.rebuild(expectedSize) : shared.rebuild();
    }

    @Override
    public void onBuilt(SharedBloomFilter.BuildListener listener) {
        shared.onBuilt(listener);
    }

    @Override
    public void onFillRead(Runnable listener) {
        shared.onFillRead(listener);
    }

    @Override
    public long approximateElementCount() {
        return shared.lastEstimate().approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return shared.lastEstimate().expectedFpp();
    }

    @Override
    public FilterStats stats(FilterStats counted) {
        FillEstimate fill = shared.lastEstimate();
        return counted.withEstimates(fill.asOf(), fill.stale());
    }

    @Override
    public boolean storedBefore() {
        return shared.storedBefore();
    }

    @Override
    public OptionalLong countedKeys() {
        return live(shared.approximateElementCount());
    }

    @Override
    public OptionalLong lastCountedKeys() {
        return live(shared.lastEstimate().approximateElementCount());
    }

    /** {@code keys}, if the store has a live filter whose keys they count. */
    private OptionalLong live(long keys) {
        SharedFilterStatus status = shared.status();
        return (status == SharedFilterStatus.READY || status == SharedFilterStatus.STALE) ? OptionalLong.of(keys)
                : OptionalLong.empty();
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return shared.mightContainAsync(key);
    }
}
