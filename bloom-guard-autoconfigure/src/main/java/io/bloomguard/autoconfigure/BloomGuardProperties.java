package io.bloomguard.autoconfigure;

import io.bloomguard.registry.FilterSpec;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bloom-guard.*}: named filters, and defaults every filter inherits. Bound once per application context, by
 * {@link BloomGuardSettings#bind}, before any bean is created; each group of properties is a class of its own
 * ({@link FilterDefaults}, {@link FilterProperties}, {@link RedisBackendProperties}, {@link ObservationsProperties}).
 *
 * <pre>
 * bloom-guard:
 *   defaults:
 *     expected-size: 1000000
 *   filters:
 *     users:
 *       error-rate: 0.001
 *       preload:
 *         sql: "SELECT id FROM users"
 * </pre>
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
@ConfigurationProperties(prefix = "bloom-guard", ignoreUnknownFields = false)
public class BloomGuardProperties {

    /**
     * Whether annotated methods are guarded and filters preloaded. When false, methods run as written and filter
     * beans still exist but answer "might contain" for every key.
     */
    private boolean enabled = true;

    /** Settings every filter inherits unless it sets its own. */
    @NestedConfigurationProperty
    private FilterDefaults defaults = new FilterDefaults();

    /**
     * Filters by name (lowercase letters, digits and '-'). Each takes backend, expected-size, error-rate, mode,
     * on-backend-failure, on-add-failure, type, growth, puts-only, preload.sql, rebuild.cron, rebuild.zone,
     * rebuild.hold-below, redis.shards and redis.near-copy (listed as
     * bloom-guard.filters.*.expected-size and so on, '*' standing for the name); what it leaves out comes from
     * bloom-guard.defaults.
     */
    private Map<String, FilterProperties> filters = new LinkedHashMap<>();

    /** Settings of the redis backend, shared by every filter that uses it. */
    @NestedConfigurationProperty
    private RedisBackendProperties redis = new RedisBackendProperties();

    /** Which of the guard's work is a Micrometer observation. */
    @NestedConfigurationProperty
    private ObservationsProperties observations = new ObservationsProperties();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public FilterDefaults getDefaults() {
        return defaults;
    }

    public Map<String, FilterProperties> getFilters() {
        return filters;
    }

    public void setFilters(Map<String, FilterProperties> filters) {
        this.filters = filters;
    }

    public RedisBackendProperties getRedis() {
        return redis;
    }

    public ObservationsProperties getObservations() {
        return observations;
    }

    /**
     * These properties with each filter's values as resolved ({@link FilterProperties#resolved}): a filter shows
     * every setting it ended up with, its own or inherited, rather than only the ones it set. The defaults and the
     * redis settings are shared, not copied.
     */
    /** The feed bound for a filter; none for a filter declared in code alone. */
    FeedProperties feedOf(String filter) {
        FilterProperties bound = filters.get(filter);
        return (bound != null) ? bound.getFeed() : new FeedProperties();
    }

    BloomGuardProperties withResolvedFilters(List<FilterSpec> specs) {
        BloomGuardProperties resolved = new BloomGuardProperties();
        resolved.enabled = enabled;
        resolved.defaults = defaults;
        resolved.redis = redis;
        resolved.observations = observations;
        for (FilterSpec spec : specs) {
            resolved.filters.put(spec.name(), FilterProperties.resolved(spec, feedOf(spec.name())));
        }
        return resolved;
    }
}
