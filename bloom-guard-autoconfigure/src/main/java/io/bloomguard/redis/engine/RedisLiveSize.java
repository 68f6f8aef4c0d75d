package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import org.jspecify.annotations.Nullable;

import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The size and shape a filter answers with: the live generation's as this instance last read it (with all its layers
 * when it grows by layers), the configured ones until it has read one.
 *
 * <p>Usage: {@code long bits = size.bitSize(); FilterSizing sizing = size.sizing();}
 */
final class RedisLiveSize {

    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final RedisStoredState state;

    /**
     * @param sizing     the configured size
     * @param configured the identity this instance would create the filter with
     */
    public RedisLiveSize(FilterSizing sizing, RedisFilterIdentity configured, RedisStoredState state) {
        this.sizing = sizing;
        this.configured = configured;
        this.state = state;
    }

    /** Bits of the live generation, of all its layers when it grows by layers. */
    public long bitSize() {
        Generation.GrownSize grown = grownSize();
        return (grown != null) ? grown.bitSize() : sizing().bitSize();
    }

    /** Bytes of the live generation in Redis, of all its layers when it grows by layers. */
    public long byteSize() {
        Generation.GrownSize grown = grownSize();
        return (grown != null) ? grown.bitSize() / Byte.SIZE : sizing().blockCount() * configured.bytesPerBlock();
    }

    /** Bits a put sets: in the newest layer when it grows by layers. */
    public int hashCount() {
        Generation.GrownSize grown = grownSize();
        return (grown != null) ? grown.hashCount() : sizing().hashCount();
    }

    /** Keys it holds at its error rate: of all its layers together when it grows by layers. */
    public long capacity() {
        Generation.GrownSize grown = grownSize();
        return (grown != null) ? grown.capacity() : sizing().expectedSize();
    }

    /** Layers of the live generation as last read: 1 unless it grows by layers, 0 before it has one. */
    public int layerCount() {
        RedisFilterView view = state.view();
        return configured.layout().layerCount((view.liveSizing != null) ? view.generation : null);
    }

    private Generation.@Nullable GrownSize grownSize() {
        RedisFilterView view = state.view();
        Generation live = view.generation;
        return (live != null && view.liveSizing != null) ? live.grownSize() : null;
    }

    /** The live generation's size (the configured one, or the one it grew to) once known; until then the configured. */
    public FilterSizing sizing() {
        FilterSizing live = state.view().liveSizing;
        return (live != null) ? live : sizing;
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    public int seed() {
        RedisFilterIdentity live = state.view().live;
        return (live != null) ? live.seed() : configured.seed();
    }

    /**
     * The stored bits with their size and seed, read by {@code export} from the live generation of one view.
     *
     * @throws IllegalStateException         when there is no complete live generation
     * @throws UnsupportedOperationException when it has grown to more than one layer
     */
    public FilterSnapshot export(String name, Supplier<SharedFilterStatus> status,
            BiFunction<RedisFilterIdentity, FilterSizing, FilterSnapshot> export) {
        RedisFilterView view = state.view();
        RedisFilterIdentity live = view.live;
        if (live == null) {
            throw new IllegalStateException(
                    "Filter '" + name + "' has no complete bitmap in Redis (" + status.get() + ")");
        }
        Generation generation = view.generation;
        if (generation != null && generation.layerCount() > 1) {
            throw new UnsupportedOperationException("Filter '" + name + "' has grown to " + generation.layerCount()
                    + " layers, and a snapshot holds one; rebuild it (which makes its layers one) and export again");
        }
        return export.apply(live, (view.liveSizing != null) ? view.liveSizing : live.sizing(sizing));
    }
}
