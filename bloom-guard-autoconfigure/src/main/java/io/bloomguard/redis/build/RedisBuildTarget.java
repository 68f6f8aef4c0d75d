package io.bloomguard.redis.build;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterView;
import org.jspecify.annotations.Nullable;

/**
 * A generation for {@link RedisFilterLoader} to build: where its bits go (its identity, which names its bitmap) and
 * the size, in keys at the error rate, they are built for. Its factories are the loader's sizing decisions: what a
 * rebuild keeps, how large {@code growth: rebuild} makes it, what an imported snapshot is, and when a key source
 * outgrows layer 0 of a filter that grows by layers.
 *
 * <p>Usage: {@code RedisBuildTarget goal = RedisBuildTarget.forRebuild(state.view(), configured, sizing);}
 *
 * @param identity where the bits go
 * @param sizing   the keys they hold at the error rate; the metadata records it
 */
record RedisBuildTarget(RedisFilterIdentity identity, FilterSizing sizing) {

    /**
     * The stored filter's shape when this instance can use it (the configured one, or the one it grew to: a rebuild
     * keeps the size a filter grew to; the layers of a filter that grows by layers become one layer 0 that holds as
     * many keys), else the configured shape, keeping the stored seed when a build under way has that shape.
     */
    static RedisBuildTarget forRebuild(RedisFilterView current, RedisFilterIdentity configured,
            FilterSizing configuredSizing) {
        if (current.live != null && current.liveSizing != null) {
            RedisLayers layers = current.layers;
            if (layers != null && layers.count() > 1) {
                // One layer for all: no key source read twice, and checks read one block again.
                FilterSizing merged = RedisLayers.oneLayerFor(layers.capacity(), current.liveSizing);
                return new RedisBuildTarget(layered(merged, current.live.seed()), merged);
            }
            return new RedisBuildTarget(current.live, current.liveSizing);
        }
        if (current.next != null && current.next.sameShape(configured)) {
            return new RedisBuildTarget(current.next, current.next.sizing(configuredSizing));
        }
        return new RedisBuildTarget(configured, configuredSizing);
    }

    /**
     * {@code growth: rebuild}'s larger generation: sized for {@code expectedSize} keys at the configured error rate
     * (never smaller than another instance has grown it to meanwhile), on as many shards as configured (more if one
     * Redis string would not hold a shard), with the stored seed.
     *
     * @throws IllegalArgumentException when a filter of that size cannot be built
     */
    static RedisBuildTarget grown(RedisFilterView current, RedisFilterIdentity configured,
            FilterSizing configuredSizing, long expectedSize) {
        long capacity = (current.liveSizing != null) ? Math.max(expectedSize, current.liveSizing.expectedSize())
                : expectedSize;
        FilterSizing grown = FilterSizing.of(capacity, configuredSizing.errorRate());
        int seed = (current.live != null) ? current.live.seed() : configured.seed();
        return new RedisBuildTarget(configured.layered() ? layered(grown, seed)
                : RedisFilterIdentity.of(grown, seed, configured.shards(), configured.counting()), grown);
    }

    /** The generation an imported snapshot's bits make, on the configured shards. */
    static RedisBuildTarget forSnapshot(FilterSnapshot snapshot, RedisFilterIdentity configured) {
        RedisFilterIdentity identity = RedisFilterIdentity.of(snapshot.sizing(), snapshot.seed(), configured.shards(),
                false);
        return new RedisBuildTarget(configured.layered() ? identity.asLayered() : identity, snapshot.sizing());
    }

    /**
     * For layer 0 of a filter that grows by layers that a key source of {@code keys} keys set {@code setBits} bits of:
     * a layer 0 for twice the keys when they are more than this one holds and a larger one fits one Redis string;
     * {@code null} otherwise.
     */
    @Nullable RedisBuildTarget outgrownBy(long keys, long setBits) {
        if (!identity.layered() || setBits <= ScalableSizing.fullAtSetBits(sizing)) {
            return null;
        }
        FilterSizing larger = RedisLayers.oneLayerFor(Math.multiplyExact(keys, 2), sizing);
        return (larger.expectedSize() > sizing.expectedSize())
                ? new RedisBuildTarget(layered(larger, identity.seed()), larger) : null;
    }

    /** Layer 0 of a filter that grows by layers, of this size. */
    private static RedisFilterIdentity layered(FilterSizing sizing, int seed) {
        return RedisFilterIdentity.of(sizing, seed, 1).asLayered();
    }
}
