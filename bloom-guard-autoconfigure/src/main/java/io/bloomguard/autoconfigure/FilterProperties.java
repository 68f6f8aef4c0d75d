package io.bloomguard.autoconfigure;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.GuardMode;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * {@code bloom-guard.filters.<name>.*}: one filter. A value left unset (null) comes from the same setting in
 * {@link FilterDefaults}; preload and redis are the filter's alone.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class FilterProperties {

    /** Where this filter's bits live: local or redis. */
    private @Nullable BackendType backend;

    /** Number of keys this filter is sized for. */
    private @Nullable Long expectedSize;

    /** False-positive probability at the expected size, between 0 and 1. */
    private @Nullable Double errorRate;

    /** What the guard does with absent keys: enforce, shadow or off. */
    private @Nullable GuardMode mode;

    /**
     * What a guarded call does when the backend fails: allow, reject or throw. With throw, a BloomPut write whose
     * key the filter refuses or cannot store also throws, from inside the method's transaction.
     */
    private @Nullable BackendFailurePolicy onBackendFailure;

    /**
     * What a BloomPut write does when its key cannot reach this redis filter: buffer (replay later) or fail (the
     * write throws and rolls back).
     */
    private @Nullable AddFailurePolicy onAddFailure;

    /** How this filter is filled at startup. */
    @NestedConfigurationProperty
    private final PreloadProperties preload = new PreloadProperties();

    /** Scheduled rebuilds of this filter. */
    @NestedConfigurationProperty
    private final RebuildProperties rebuild = new RebuildProperties();

    /** Redis settings of this filter (backend: redis). */
    @NestedConfigurationProperty
    private final FilterRedisProperties redis = new FilterRedisProperties();

    /** Change feed that keeps this filter current with rows written outside the application. */
    @NestedConfigurationProperty
    private FeedProperties feed = new FeedProperties();

    public @Nullable BackendType getBackend() {
        return backend;
    }

    public void setBackend(@Nullable BackendType backend) {
        this.backend = backend;
    }

    public @Nullable Long getExpectedSize() {
        return expectedSize;
    }

    public void setExpectedSize(@Nullable Long expectedSize) {
        this.expectedSize = expectedSize;
    }

    public @Nullable Double getErrorRate() {
        return errorRate;
    }

    public void setErrorRate(@Nullable Double errorRate) {
        this.errorRate = errorRate;
    }

    public @Nullable GuardMode getMode() {
        return mode;
    }

    public void setMode(@Nullable GuardMode mode) {
        this.mode = mode;
    }

    public @Nullable BackendFailurePolicy getOnBackendFailure() {
        return onBackendFailure;
    }

    public void setOnBackendFailure(@Nullable BackendFailurePolicy onBackendFailure) {
        this.onBackendFailure = onBackendFailure;
    }

    public @Nullable AddFailurePolicy getOnAddFailure() {
        return onAddFailure;
    }

    public void setOnAddFailure(@Nullable AddFailurePolicy onAddFailure) {
        this.onAddFailure = onAddFailure;
    }

    public PreloadProperties getPreload() {
        return preload;
    }

    public RebuildProperties getRebuild() {
        return rebuild;
    }

    public FilterRedisProperties getRedis() {
        return redis;
    }
    /**
     * What this filter keeps per position: bloom (a bit), counting (a 4-bit counter, so keys can be removed) or cuckoo
     * (a fingerprint per key, so keys can be removed, at about a bloom filter's memory; local backend only).
     */
    private @Nullable FilterType type;

    /** What this filter does past its expected size: none, rebuild or scale. */
    private @Nullable GrowthPolicy growth;

    public @Nullable FilterType getType() {
        return type;
    }

    public void setType(@Nullable FilterType type) {
        this.type = type;
    }

    /**
     * Whether this filter is filled by puts alone (put, putAll, @BloomPut) and has no key source, such as a filter of
     * seen URLs. It is never rebuilt, since a rebuild would empty it: it grows by layers (growth: scale) unless growth
     * says none, and a rebuild asked of it is refused.
     */
    private boolean putsOnly;

    public @Nullable GrowthPolicy getGrowth() {
        return growth;
    }

    public boolean isPutsOnly() {
        return putsOnly;
    }

    public void setPutsOnly(boolean putsOnly) {
        this.putsOnly = putsOnly;
    }

    public void setGrowth(@Nullable GrowthPolicy growth) {
        this.growth = growth;
    }

    public FeedProperties getFeed() {
        return feed;
    }

    /**
     * The values a filter ended up with, defaults applied: what {@code /actuator/configprops} shows for it. Its feed is
     * not part of the spec, and is shown as bound.
     */
    static FilterProperties resolved(FilterSpec spec, FeedProperties feed) {
        FilterProperties filter = new FilterProperties();
        filter.feed = feed;
        filter.backend = spec.backendType();
        filter.expectedSize = spec.sizing().expectedSize();
        filter.errorRate = spec.sizing().errorRate();
        filter.mode = spec.guard().mode();
        filter.onBackendFailure = spec.guard().onBackendFailure();
        filter.onAddFailure = spec.writes().onAddFailure();
        filter.type = spec.sizing().type();
        filter.growth = spec.sizing().growth();
        filter.putsOnly = spec.writes().putsOnly();
        filter.preload.setSql(spec.lifecycle().preloadSql());
        filter.rebuild.setCron(spec.lifecycle().rebuildCron());
        filter.rebuild.setZone(spec.lifecycle().rebuildZone());
        filter.rebuild.setHoldBelow(spec.lifecycle().rebuildHoldBelow());
        if (spec.backend() instanceof FilterSpec.Redis redis) {
            filter.redis.setShards(redis.shards());
            filter.redis.setNearCopy(redis.nearCopy());
            filter.redis.setKind(redis.kind());
            filter.redis.setKey(redis.key());
        }
        return filter;
    }
}
