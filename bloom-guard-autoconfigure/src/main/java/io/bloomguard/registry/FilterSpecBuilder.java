package io.bloomguard.registry;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.NearCopyMode;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link FilterSpec}: from the properties' defaults ({@link FilterSpec#builder}) or from a spec to change
 * ({@link FilterSpec#toBuilder}, what a {@link FilterSpecCustomizer} is given). {@link #build} refuses values that
 * cannot be with an {@link InvalidFilterSpecException} naming the property they correspond to.
 *
 * <p>Usage: {@code spec.toBuilder().expectedSize(5_000_000).redis(8, NearCopyMode.ON).build()}
 *
 * @since 0.1.0
 */
public final class FilterSpecBuilder {

    private final String name;
    private long expectedSize = 1_000_000;
    private double errorRate = 0.01;
    private FilterType type = FilterType.BLOOM;
    private GrowthPolicy growth = GrowthPolicy.REBUILD;
    private GuardMode mode = GuardMode.ENFORCE;
    private BackendFailurePolicy onBackendFailure = BackendFailurePolicy.ALLOW;
    private AddFailurePolicy onAddFailure = AddFailurePolicy.BUFFER;
    private boolean putsOnly;
    private @Nullable String preloadSql;
    private @Nullable String rebuildCron;
    private @Nullable String rebuildZone;
    private double rebuildHoldBelow = FilterSpec.DEFAULT_REBUILD_HOLD_BELOW;
    private FilterSpec.BackendOptions backend = new FilterSpec.Local();

    FilterSpecBuilder(String name) {
        this.name = name;
    }

    FilterSpecBuilder(FilterSpec spec) {
        this(spec.name());
        sizing(spec.sizing());
        mode = spec.guard().mode();
        onBackendFailure = spec.guard().onBackendFailure();
        onAddFailure = spec.writes().onAddFailure();
        putsOnly = spec.writes().putsOnly();
        preloadSql = spec.lifecycle().preloadSql();
        rebuildCron = spec.lifecycle().rebuildCron();
        rebuildZone = spec.lifecycle().rebuildZone();
        rebuildHoldBelow = spec.lifecycle().rebuildHoldBelow();
        backend = spec.backend();
    }

    /** The filter's name: it cannot be changed. */
    public String name() {
        return name;
    }

    /** Every value of the sizing section at once. */
    public FilterSpecBuilder sizing(FilterSpec.Sizing sizing) {
        return expectedSize(sizing.expectedSize()).errorRate(sizing.errorRate()).type(sizing.type())
            .growth(sizing.growth());
    }

    public FilterSpecBuilder expectedSize(long expectedSize) {
        this.expectedSize = expectedSize;
        return this;
    }

    public FilterSpecBuilder errorRate(double errorRate) {
        this.errorRate = errorRate;
        return this;
    }

    public FilterSpecBuilder type(FilterType type) {
        this.type = type;
        return this;
    }

    public FilterSpecBuilder growth(GrowthPolicy growth) {
        this.growth = growth;
        return this;
    }

    public FilterSpecBuilder mode(GuardMode mode) {
        this.mode = mode;
        return this;
    }

    public FilterSpecBuilder onBackendFailure(BackendFailurePolicy onBackendFailure) {
        this.onBackendFailure = onBackendFailure;
        return this;
    }

    public FilterSpecBuilder onAddFailure(AddFailurePolicy onAddFailure) {
        this.onAddFailure = onAddFailure;
        return this;
    }

    public FilterSpecBuilder putsOnly(boolean putsOnly) {
        this.putsOnly = putsOnly;
        return this;
    }

    public FilterSpecBuilder preloadSql(@Nullable String preloadSql) {
        this.preloadSql = preloadSql;
        return this;
    }

    public FilterSpecBuilder rebuildCron(@Nullable String rebuildCron) {
        this.rebuildCron = rebuildCron;
        return this;
    }

    public FilterSpecBuilder rebuildZone(@Nullable String rebuildZone) {
        this.rebuildZone = rebuildZone;
        return this;
    }

    public FilterSpecBuilder rebuildHoldBelow(double rebuildHoldBelow) {
        this.rebuildHoldBelow = rebuildHoldBelow;
        return this;
    }

    /** Bits in this JVM's heap. */
    public FilterSpecBuilder local() {
        this.backend = new FilterSpec.Local();
        return this;
    }

    /** Bits in Redis, split over {@code shards} strings, with or without a near copy in each instance. */
    public FilterSpecBuilder redis(int shards, NearCopyMode nearCopy) {
        return redis(shards, nearCopy, RedisFilterKind.BITMAP);
    }

    /** Bits in Redis, stored as {@code kind}: bloom-guard's bitmap, or the server's own {@code BF.*} filter. */
    public FilterSpecBuilder redis(int shards, NearCopyMode nearCopy, RedisFilterKind kind) {
        return redis(shards, nearCopy, kind, null);
    }

    /**
     * As {@link #redis(int, NearCopyMode, RedisFilterKind)}, or, with a {@code key}, the filter of the server's that
     * another program created and fills under that key ({@code kind} native).
     */
    public FilterSpecBuilder redis(int shards, NearCopyMode nearCopy, RedisFilterKind kind, @Nullable String key) {
        this.backend = new FilterSpec.Redis(shards, nearCopy, kind, key);
        return this;
    }

    public FilterSpecBuilder backend(FilterSpec.BackendOptions backend) {
        this.backend = backend;
        return this;
    }

    /** The spec, once {@link FilterSpecRules} find nothing that cannot be. */
    public FilterSpec build() {
        FilterSpec spec = new FilterSpec(name, new FilterSpec.Sizing(expectedSize, errorRate, type, growth),
                new FilterSpec.GuardPolicy(mode, onBackendFailure), new FilterSpec.WritePolicy(onAddFailure, putsOnly),
                new FilterSpec.Lifecycle(preloadSql, rebuildCron, rebuildZone, rebuildHoldBelow), backend);
        FilterSpecRules.check(spec);
        return spec;
    }
}
