package io.bloomguard.autoconfigure;

import io.bloomguard.registry.AddFailurePolicy;
import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.GuardMode;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code bloom-guard.*}: named filters, and defaults every filter inherits.
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
 */
@ConfigurationProperties(prefix = "bloom-guard", ignoreUnknownFields = false)
public class BloomGuardProperties {

    private static final String PREFIX = "bloom-guard";

    /** Name of the master switch. */
    static final String ENABLED = "bloom-guard.enabled";

    /**
     * Whether annotated methods are guarded and filters preloaded. When false, methods run as written and
     * filter beans still exist but answer "might contain" for every key.
     */
    private boolean enabled = true;

    /** Settings every filter inherits unless it sets its own. */
    private final Defaults defaults = new Defaults();

    /** Filters by name (lowercase letters, digits and '-'). */
    private Map<String, Filter> filters = new LinkedHashMap<>();

    /** Settings of the redis backend, shared by every filter that uses it. */
    private final Redis redis = new Redis();

    /**
     * Binds {@code bloom-guard.*} straight from the environment, for code that runs before beans exist. Strict for
     * application files, the command line and every other source the application chose: a property this version
     * does not know (a typo such as {@code eror-rate}, or a setting from a later version) fails startup instead of
     * silently leaving a filter on its defaults. Not for environment variables and system properties, which relaxed
     * binding maps onto {@code bloom-guard.*} even when another tool set them ({@code BLOOMGUARD_VERSION} reads as
     * {@code bloom-guard.version}); {@link #unknownInEnvironment} finds those. This is the rule Spring Boot applies
     * to the properties bean itself ({@code ignoreUnknownFields = false}).
     */
    static BloomGuardProperties bind(Environment environment) {
        return Binder.get(environment).bindOrCreate(PREFIX, Bindable.of(BloomGuardProperties.class),
                new NoUnboundElementsBindHandler(BindHandler.DEFAULT, new UnboundElementsSourceFilter()));
    }

    /**
     * The {@code bloom-guard.*} properties from environment variables and system properties that this version does
     * not know, which {@link #bind} leaves alone; empty when there are none.
     */
    static Set<ConfigurationProperty> unknownInEnvironment(Environment environment) {
        UnboundElementsSourceFilter applicationSources = new UnboundElementsSourceFilter();
        try {
            Binder.get(environment).bindOrCreate(PREFIX, Bindable.of(BloomGuardProperties.class),
                    new NoUnboundElementsBindHandler(BindHandler.DEFAULT,
                            (source) -> !applicationSources.apply(source)));
            return Set.of();
        }
        catch (BindException ex) {
            if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                return unbound.getUnboundProperties();
            }
            throw ex;
        }
    }

    /**
     * Reads the master switch alone, the way {@link #bind} reads it (true when unset, the field's default), for the
     * conditions that decide whether the guard and the preload exist. A value the binder does not take for a boolean
     * throws its {@code BindException}, which Spring Boot reports as it reports any property it cannot bind.
     */
    static boolean enabled(Environment environment) {
        return Binder.get(environment).bind(ENABLED, Bindable.of(Boolean.class)).orElse(true);
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Defaults getDefaults() {
        return defaults;
    }

    public Redis getRedis() {
        return redis;
    }

    public Map<String, Filter> getFilters() {
        return filters;
    }

    public void setFilters(Map<String, Filter> filters) {
        this.filters = filters;
    }

    /** Defaults for every filter. */
    public static class Defaults {

        /** Scheduled rebuilds every filter inherits. */
        private final Rebuild rebuild = new Rebuild();

        public Rebuild getRebuild() {
            return rebuild;
        }

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
         * {@code @BloomPut} whose key the filter refuses or cannot store also throws, from inside the method's
         * transaction, which then rolls back.
         */
        private BackendFailurePolicy onBackendFailure = BackendFailurePolicy.ALLOW;

        /**
         * What a {@code @BloomPut} write does when its key cannot reach a redis filter: buffer (keep it for replay
         * once Redis answers; other instances may reject the record meanwhile) or fail (the write throws and its
         * transaction rolls back, so no instance can reject it).
         */
        private AddFailurePolicy onAddFailure = AddFailurePolicy.BUFFER;

        /**
         * What a filter keeps per position: bloom (a bit) or counting (a 4-bit counter, four times the memory, so
         * that keys can be removed).
         */
        private FilterType type = FilterType.BLOOM;

        /**
         * What a filter does past its expected size: none (report being over capacity), rebuild (rebuild itself larger
         * from its key source at 90% of its capacity) or scale (add larger layers; local bloom filters only).
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
    }

    /** One filter; every unset value comes from {@code bloom-guard.defaults}. */
    public static class Filter {

        /** Where this filter's bits live: local or redis. */
        private @Nullable BackendType backend;

        /** Number of keys this filter is sized for. */
        private @Nullable Long expectedSize;

        /** False-positive probability at the expected size, between 0 and 1. */
        private @Nullable Double errorRate;

        /** What the guard does with absent keys: enforce, shadow or off. */
        private @Nullable GuardMode mode;

        /**
         * What a guarded call does when the backend fails: allow, reject or throw. With throw, a {@code @BloomPut}
         * whose key the filter refuses or cannot store also throws, from inside the method's transaction.
         */
        private @Nullable BackendFailurePolicy onBackendFailure;

        /**
         * What a {@code @BloomPut} write does when its key cannot reach this redis filter: buffer (replay later) or
         * fail (the write throws and rolls back).
         */
        private @Nullable AddFailurePolicy onAddFailure;

        /** What this filter keeps per position: bloom (a bit) or counting (a 4-bit counter, so keys can be removed). */
        private @Nullable FilterType type;

        /** What this filter does past its expected size: none, rebuild or scale. */
        private @Nullable GrowthPolicy growth;

        public @Nullable FilterType getType() {
            return type;
        }

        public void setType(@Nullable FilterType type) {
            this.type = type;
        }

        public @Nullable GrowthPolicy getGrowth() {
            return growth;
        }

        public void setGrowth(@Nullable GrowthPolicy growth) {
            this.growth = growth;
        }

        /** How this filter is filled at startup. */
        private final Preload preload = new Preload();

        /** Scheduled rebuilds of this filter. */
        private final Rebuild rebuild = new Rebuild();

        public Rebuild getRebuild() {
            return rebuild;
        }

        /** Redis settings of this filter (backend: redis). */
        private final FilterRedis redis = new FilterRedis();

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

        public Preload getPreload() {
            return preload;
        }

        public FilterRedis getRedis() {
            return redis;
        }
    }

    /** Redis settings of one filter. */
    public static class FilterRedis {

        /**
         * Number of Redis keys the filter's bits are split over, each with its own hash tag so that a Redis
         * Cluster spreads them over its nodes. Filters above one Redis string (2^32 bits) get more automatically.
         */
        private int shards = 1;

        public int getShards() {
            return shards;
        }

        public void setShards(int shards) {
            this.shards = shards;
        }
    }

    /** The redis backend: one filter shared by every instance, through the application's RedisConnectionFactory. */
    public static class Redis {

        /** Prefix of every key bloom-guard writes to Redis. */
        private String keyPrefix = "bloom-guard:";

        /**
         * Longest a guarded call waits for Redis to answer a check; then the filter's on-backend-failure policy
         * applies, and the failure counts towards opening the circuit breaker.
         */
        private Duration checkTimeout = Duration.ofMillis(50);

        /** Longest any other Redis command (adds, metadata, preload uploads) is waited for. */
        private Duration commandTimeout = Duration.ofSeconds(2);

        /**
         * Share of failed or timed-out Redis calls, in percent, over breaker-window, at or above which a circuit
         * breaker opens (checks and other commands have one each): calls then fail at once (and follow
         * on-backend-failure) instead of each waiting for the timeout.
         */
        private int breakerFailureRate = 50;

        /** Calls breaker-window must hold before their failure rate can open a circuit breaker. */
        private int breakerMinimumCalls = 10;

        /** How far back a circuit breaker counts calls and failures. */
        private Duration breakerWindow = Duration.ofSeconds(2);

        /** How long an open circuit breaker fails calls at once before it lets one trial call through. */
        private Duration breakerOpenWait = Duration.ofMillis(250);

        /**
         * How often, while adds wait for replay or a stale mark waits to be sent because Redis did not answer, one
         * probe command asks whether it does again, so that they are delivered at once when it does.
         */
        private Duration probeInterval = Duration.ofMillis(50);

        /**
         * Pause between attempts to open a new connection while the backend's own connection to Redis is down,
         * instead of the Redis client's reconnect back-off, which grows to many seconds.
         */
        private Duration reconnectDelay = Duration.ofMillis(100);

        /**
         * Expiry of the lock held by the instance that loads a filter. The loader renews it; if the loader dies,
         * another instance takes over after at most this long.
         */
        private Duration lockTtl = Duration.ofSeconds(30);

        /** How often each instance reads a filter's stored state (ready, generation, bitmap still there). */
        private Duration refreshInterval = Duration.ofSeconds(1);

        /**
         * Adds kept in memory for replay while Redis is unreachable. When more fail, the filter is marked stale in
         * Redis and rebuilt from its key source once Redis is back.
         */
        private int pendingAddsLimit = 100_000;

        /**
         * Pause between announcing a new generation (from then on every add reaches it) and reading the key
         * source, so that writes whose transactions were open before the announcement are in the source or in
         * the new generation. Longer transactions than this may lose their key across a rebuild.
         */
        private Duration rebuildGrace = Duration.ofSeconds(1);

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Duration getCheckTimeout() {
            return checkTimeout;
        }

        public void setCheckTimeout(Duration checkTimeout) {
            this.checkTimeout = checkTimeout;
        }

        public Duration getCommandTimeout() {
            return commandTimeout;
        }

        public void setCommandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
        }

        public int getBreakerFailureRate() {
            return breakerFailureRate;
        }

        public void setBreakerFailureRate(int breakerFailureRate) {
            this.breakerFailureRate = breakerFailureRate;
        }

        public int getBreakerMinimumCalls() {
            return breakerMinimumCalls;
        }

        public void setBreakerMinimumCalls(int breakerMinimumCalls) {
            this.breakerMinimumCalls = breakerMinimumCalls;
        }

        public Duration getBreakerWindow() {
            return breakerWindow;
        }

        public void setBreakerWindow(Duration breakerWindow) {
            this.breakerWindow = breakerWindow;
        }

        public Duration getBreakerOpenWait() {
            return breakerOpenWait;
        }

        public void setBreakerOpenWait(Duration breakerOpenWait) {
            this.breakerOpenWait = breakerOpenWait;
        }

        public Duration getProbeInterval() {
            return probeInterval;
        }

        public void setProbeInterval(Duration probeInterval) {
            this.probeInterval = probeInterval;
        }

        public Duration getReconnectDelay() {
            return reconnectDelay;
        }

        public void setReconnectDelay(Duration reconnectDelay) {
            this.reconnectDelay = reconnectDelay;
        }

        public Duration getLockTtl() {
            return lockTtl;
        }

        public void setLockTtl(Duration lockTtl) {
            this.lockTtl = lockTtl;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        public int getPendingAddsLimit() {
            return pendingAddsLimit;
        }

        public void setPendingAddsLimit(int pendingAddsLimit) {
            this.pendingAddsLimit = pendingAddsLimit;
        }

        public Duration getRebuildGrace() {
            return rebuildGrace;
        }

        public void setRebuildGrace(Duration rebuildGrace) {
            this.rebuildGrace = rebuildGrace;
        }
    }

    /** Zero-code preload. */
    /** When a filter is rebuilt from its key source on a schedule (dropping deleted keys). */
    public static class Rebuild {

        /**
         * Cron expression (Spring's six fields: second minute hour day month weekday) of scheduled rebuilds, e.g.
         * "0 0 4 * * *" for 4 a.m. every day. None by default. On redis, one instance runs each.
         */
        private @Nullable String cron;

        /** Time zone the cron expression is read in, e.g. "UTC" or "Europe/Paris"; the JVM's by default. */
        private @Nullable String zone;

        public @Nullable String getCron() {
            return cron;
        }

        public void setCron(@Nullable String cron) {
            this.cron = cron;
        }

        public @Nullable String getZone() {
            return zone;
        }

        public void setZone(@Nullable String zone) {
            this.zone = zone;
        }
    }

    public static class Preload {

        /**
         * Query whose first column yields every key, run through the application's DataSource at startup,
         * e.g. "SELECT id FROM users".
         */
        private @Nullable String sql;

        public @Nullable String getSql() {
            return sql;
        }

        public void setSql(@Nullable String sql) {
            this.sql = sql;
        }
    }
}
