package io.bloomguard.autoconfigure;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.GuardMode;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * {@code bloom-guard.defaults.*}: what every filter inherits. Each setting here has a nullable twin in
 * {@link FilterProperties}, and {@link FilterSpecResolver} takes the filter's own value over this one; a new
 * inherited setting goes in all three.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class FilterDefaults {

    /** Where filter bits live: local (this JVM) or redis (shared by every instance). */
    private BackendType backend = BackendType.LOCAL;

    /** Number of keys a filter is sized for. */
    private long expectedSize = 1_000_000;

    /** False-positive probability a filter is sized for at its expected size, between 0 and 1. */
    private double errorRate = 0.01;

    /** What the guard does with absent keys: enforce (reject), shadow (record only) or off. */
    private GuardMode mode = GuardMode.ENFORCE;

    /**
     * What a guarded call does when the backend fails: allow (call through), reject or throw. With throw, a
     * BloomPut write whose key the filter refuses or cannot store also throws, from inside the method's
     * transaction, which then rolls back.
     */
    private BackendFailurePolicy onBackendFailure = BackendFailurePolicy.ALLOW;

    /**
     * What a BloomPut write does when its key cannot reach a redis filter: buffer (keep it for replay once Redis
     * answers; other instances may reject the record meanwhile) or fail (the write throws and its transaction rolls
     * back, so no instance can reject it).
     */
    private AddFailurePolicy onAddFailure = AddFailurePolicy.BUFFER;

    /** Scheduled rebuilds every filter inherits. */
    @NestedConfigurationProperty
    private final RebuildProperties rebuild = new RebuildProperties();

    public BackendType getBackend() {
        return backend;
    }

    public void setBackend(BackendType backend) {
        this.backend = backend;
    }

    public long getExpectedSize() {
        return expectedSize;
    }

    public void setExpectedSize(long expectedSize) {
        this.expectedSize = expectedSize;
    }

    public double getErrorRate() {
        return errorRate;
    }

    public void setErrorRate(double errorRate) {
        this.errorRate = errorRate;
    }

    public GuardMode getMode() {
        return mode;
    }

    public void setMode(GuardMode mode) {
        this.mode = mode;
    }

    public BackendFailurePolicy getOnBackendFailure() {
        return onBackendFailure;
    }

    public void setOnBackendFailure(BackendFailurePolicy onBackendFailure) {
        this.onBackendFailure = onBackendFailure;
    }

    public AddFailurePolicy getOnAddFailure() {
        return onAddFailure;
    }

    public void setOnAddFailure(AddFailurePolicy onAddFailure) {
        this.onAddFailure = onAddFailure;
    }

    public RebuildProperties getRebuild() {
        return rebuild;
    }
    /**
     * What a filter keeps per position: bloom (a bit), counting (a 4-bit counter, four times the memory, so that
     * keys can be removed) or cuckoo (a fingerprint per key, keys can be removed, about a bloom filter's memory; local
     * backend only).
     */
    private FilterType type = FilterType.BLOOM;

    /**
     * What a filter does past its expected size: none (report being over capacity), rebuild (rebuild itself larger
     * from its key source at 90% of its capacity) or scale (add larger layers).
     */
    private GrowthPolicy growth = GrowthPolicy.REBUILD;

    public FilterType getType() {
        return type;
    }

    public void setType(FilterType type) {
        this.type = type;
    }

    public GrowthPolicy getGrowth() {
        return growth;
    }

    public void setGrowth(GrowthPolicy growth) {
        this.growth = growth;
    }
}
