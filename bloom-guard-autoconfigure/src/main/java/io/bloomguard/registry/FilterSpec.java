package io.bloomguard.registry;

import io.bloomguard.core.NearCopyMode;
import org.jspecify.annotations.Nullable;

/**
 * Everything configured for one filter, after defaults were applied and values validated.
 *
 * @param name             filter name ({@code [a-z0-9-]+})
 * @param expectedSize     keys the filter is sized for
 * @param errorRate        target false-positive probability at {@code expectedSize} keys
 * @param backend          where its bits live
 * @param mode             what the guard does with an absent key
 * @param onBackendFailure what a guarded call does when the backend fails
 * @param onAddFailure     what a {@code @BloomPut} write does when its key cannot reach the filter's store
 * @param preloadSql       query whose first column yields every key, or {@code null}
 * @param redisShards      Redis strings the filter is split over (redis backend; more when one would not hold it)
 * @param rebuildCron      cron expression of scheduled rebuilds, or {@code null} for none
 * @param rebuildZone      time zone of {@code rebuildCron}, or {@code null} for the JVM's
 * @param type             bits, or counters that allow removes
 * @param growth           what it does past its capacity
 * @param redisNearCopy    whether each instance keeps a copy of the bits, and which keys it answers (redis backend)
 * @param putsOnly         whether it is filled by puts alone, with no key source: it is never rebuilt
 * @param rebuildHoldBelow share of the live filter's estimated keys below which a rebuild's keys are held back, not
 *                         swapped in, until an operator confirms them; 0 never holds one back
 */
public record FilterSpec(String name, long expectedSize, double errorRate, BackendType backend, GuardMode mode,
        BackendFailurePolicy onBackendFailure, AddFailurePolicy onAddFailure, @Nullable String preloadSql,
        int redisShards, @Nullable String rebuildCron, @Nullable String rebuildZone, FilterType type,
        GrowthPolicy growth, NearCopyMode redisNearCopy, boolean putsOnly, double rebuildHoldBelow) {

    /** What {@code rebuild.hold-below} is unless set: a rebuild that reads under half the live keys waits. */
    public static final double DEFAULT_REBUILD_HOLD_BELOW = 0.5;

    /** A filter with a key source (or none yet), holding back rebuilds as by default. */
    public FilterSpec(String name, long expectedSize, double errorRate, BackendType backend, GuardMode mode,
            BackendFailurePolicy onBackendFailure, AddFailurePolicy onAddFailure, @Nullable String preloadSql,
            int redisShards, @Nullable String rebuildCron, @Nullable String rebuildZone, FilterType type,
            GrowthPolicy growth, boolean redisNearCopy) {
        this(name, expectedSize, errorRate, backend, mode, onBackendFailure, onAddFailure, preloadSql, redisShards,
                rebuildCron, rebuildZone, type, growth, redisNearCopy ? NearCopyMode.ON : NearCopyMode.OFF, false,
                DEFAULT_REBUILD_HOLD_BELOW);
    }

    /** A filter with no near copy. */
    public FilterSpec(String name, long expectedSize, double errorRate, BackendType backend, GuardMode mode,
            BackendFailurePolicy onBackendFailure, AddFailurePolicy onAddFailure, @Nullable String preloadSql,
            int redisShards, @Nullable String rebuildCron, @Nullable String rebuildZone, FilterType type,
            GrowthPolicy growth) {
        this(name, expectedSize, errorRate, backend, mode, onBackendFailure, onAddFailure, preloadSql, redisShards,
                rebuildCron, rebuildZone, type, growth, false);
    }

    /** A plain filter that does not grow. */
    public FilterSpec(String name, long expectedSize, double errorRate, BackendType backend, GuardMode mode,
            BackendFailurePolicy onBackendFailure, AddFailurePolicy onAddFailure, @Nullable String preloadSql,
            int redisShards, @Nullable String rebuildCron, @Nullable String rebuildZone) {
        this(name, expectedSize, errorRate, backend, mode, onBackendFailure, onAddFailure, preloadSql, redisShards,
                rebuildCron, rebuildZone, FilterType.BLOOM, GrowthPolicy.NONE);
    }

    /** A plain filter that does not grow, with no scheduled rebuild. */
    public FilterSpec(String name, long expectedSize, double errorRate, BackendType backend, GuardMode mode,
            BackendFailurePolicy onBackendFailure, AddFailurePolicy onAddFailure, @Nullable String preloadSql,
            int redisShards) {
        this(name, expectedSize, errorRate, backend, mode, onBackendFailure, onAddFailure, preloadSql, redisShards,
                null, null);
    }
}
