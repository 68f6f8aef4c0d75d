package io.bloomguard.registry;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import org.jspecify.annotations.Nullable;

/**
 * Everything configured for one filter, defaults applied and values validated, in sections: how it is sized, what
 * the guard does with its answers, what a write does, how it is filled and rebuilt, and where its bits live.
 *
 * <p>Usage: {@code FilterSpec.builder("users").expectedSize(1_000_000).redis(4, NearCopyMode.OFF).build()}
 *
 * @param name      filter name ({@code [a-z0-9-]+})
 * @param sizing    how many keys, at what error rate, in bits or counters, and what it does past its capacity
 * @param guard     what a guarded call does with an absent key, and when the backend fails
 * @param writes    what a write does when its key cannot reach the store, and whether puts alone fill it
 * @param lifecycle where its keys are read from, and when and how it is rebuilt
 * @param backend   where its bits live, with that backend's own options
 *
 * @since 0.1.0
 */
public record FilterSpec(String name, Sizing sizing, GuardPolicy guard, WritePolicy writes, Lifecycle lifecycle,
        BackendOptions backend) {

    /** What {@code rebuild.hold-below} is unless set: a rebuild that reads under half the live keys waits. */
    public static final double DEFAULT_REBUILD_HOLD_BELOW = 0.5;

    /** A spec to build for {@code name}: every section as the properties' defaults have it, on a local backend. */
    public static FilterSpecBuilder builder(String name) {
        return new FilterSpecBuilder(name);
    }

    /** A builder holding this spec's values, to change some of them. */
    public FilterSpecBuilder toBuilder() {
        return new FilterSpecBuilder(this);
    }

    /** Where its bits live: {@code LOCAL} or {@code REDIS}. */
    public BackendType backendType() {
        return backend.type();
    }

    /**
     * How the filter is sized.
     *
     * @param expectedSize keys the filter is sized for
     * @param errorRate    target false-positive probability at {@code expectedSize} keys
     * @param type         bits, or counters that allow removes
     * @param growth       what it does past its capacity
     */
    public record Sizing(long expectedSize, double errorRate, FilterType type, GrowthPolicy growth) {

        /** The size configured: {@code expectedSize} keys at {@code errorRate}. */
        public FilterSizing configured() {
            return FilterSizing.of(expectedSize, errorRate);
        }
    }

    /**
     * What the guard does with the filter's answers.
     *
     * @param mode             what the guard does with an absent key
     * @param onBackendFailure what a guarded call does when the backend fails
     */
    public record GuardPolicy(GuardMode mode, BackendFailurePolicy onBackendFailure) {
    }

    /**
     * What a write does.
     *
     * @param onAddFailure what a {@code @BloomPut} write does when its key cannot reach the filter's store
     * @param putsOnly     whether it is filled by puts alone, with no key source: it is never rebuilt
     */
    public record WritePolicy(AddFailurePolicy onAddFailure, boolean putsOnly) {
    }

    /**
     * How the filter is filled and rebuilt.
     *
     * @param preloadSql       query whose first column yields every key, or {@code null}
     * @param rebuildCron      cron expression of scheduled rebuilds, or {@code null} for none
     * @param rebuildZone      time zone of {@code rebuildCron}, or {@code null} for the JVM's
     * @param rebuildHoldBelow share of the live filter's estimated keys below which a rebuild's keys are held back,
     *                         not swapped in, until an operator confirms them; 0 never holds one back
     */
    public record Lifecycle(@Nullable String preloadSql, @Nullable String rebuildCron, @Nullable String rebuildZone,
            double rebuildHoldBelow) {
    }

    /** Where the bits live, with the options only that backend has. */
    public sealed interface BackendOptions permits Local, Redis {

        /** Which backend this is. */
        BackendType type();
    }

    /** In this JVM's heap. */
    public record Local() implements BackendOptions {

        @Override
        public BackendType type() {
            return BackendType.LOCAL;
        }
    }

    /**
     * In Redis, shared by every instance.
     *
     * @param shards   Redis strings the filter is split over (more when one would not hold it)
     * @param nearCopy whether each instance keeps a copy of the bits, and which keys it answers
     * @param kind     bloom-guard's bitmap, the server's own {@code BF.*} or {@code CF.*} filter, or whichever the
     *                 stored filter or the server says ({@code auto})
     * @param key      the key of a filter of the server's that another program created and fills, which this one
     *                 guards ({@code redis.key}); {@code null} for a filter of bloom-guard's own, under its key prefix
     */
    public record Redis(int shards, NearCopyMode nearCopy, RedisFilterKind kind, @Nullable String key)
            implements BackendOptions {

        /** A bitmap ({@link RedisFilterKind#BITMAP}). */
        public Redis(int shards, NearCopyMode nearCopy) {
            this(shards, nearCopy, RedisFilterKind.BITMAP);
        }

        /** A filter of bloom-guard's own, stored as {@code kind}. */
        public Redis(int shards, NearCopyMode nearCopy, RedisFilterKind kind) {
            this(shards, nearCopy, kind, null);
        }

        @Override
        public BackendType type() {
            return BackendType.REDIS;
        }
    }
}
