package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.redis.kind.RedisFilterIdentity;

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
        RedisFilterIdentity live = current.live;
        if (live != null && current.generation != null && current.liveSizing != null) {
            FilterSizing kept = current.generation.rebuildSizing(current.liveSizing);
            if (!kept.equals(current.liveSizing)) {
                return new RedisBuildTarget(live.kind().identity(kept, live.seed(), live.shards()), kept);
            }
            return new RedisBuildTarget(live, current.liveSizing);
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
        return new RedisBuildTarget(configured.layout().identity(grown, seed, configured.shards()), grown);
    }

    /** The generation an imported snapshot's bits make, on the configured shards (a counting filter takes none). */
    static RedisBuildTarget forSnapshot(FilterSnapshot snapshot, RedisFilterIdentity configured) {
        return new RedisBuildTarget(configured.layout().identity(snapshot.sizing(), snapshot.seed(),
                configured.shards()), snapshot.sizing());
    }

    /** The same generation resized to {@code sizing}: a key source outgrew layer 0 of a filter that grows by layers. */
    RedisBuildTarget resizedTo(FilterSizing sizing) {
        return new RedisBuildTarget(identity.layout().identity(sizing, identity.seed(), identity.shards()), sizing);
    }
}
