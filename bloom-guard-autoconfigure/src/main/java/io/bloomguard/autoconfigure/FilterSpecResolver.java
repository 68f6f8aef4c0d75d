package io.bloomguard.autoconfigure;

import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisBreakerSettings;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns bound properties into validated, immutable {@link FilterSpec}s: each filter's own values over the
 * defaults. The properties are not changed; a value that is valid but unsafe is logged as a warning.
 */
final class FilterSpecResolver {

    private static final Log logger = LogFactory.getLog(FilterSpecResolver.class);

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    /** Most shards of one filter: one per Redis Cluster hash slot. */
    private static final int MAX_SHARDS = 16384;

    private FilterSpecResolver() {
    }

    static List<FilterSpec> resolve(BloomGuardProperties properties) {
        FilterDefaults defaults = properties.getDefaults();
        validateSize("bloom-guard.defaults", defaults.getExpectedSize(), defaults.getErrorRate());
        List<FilterSpec> specs = new ArrayList<>();
        HeapBudget heapBudget = new HeapBudget();
        for (Map.Entry<String, FilterProperties> entry : properties.getFilters().entrySet()) {
            String name = entry.getKey();
            String prefix = "bloom-guard.filters." + name;
            if (!NAME.matcher(name).matches()) {
                throw new InvalidBloomGuardPropertyException("bloom-guard.filters", name,
                        "a filter name uses lowercase letters, digits and '-' only (e.g. 'user-ids')");
            }
            FilterProperties filter = entry.getValue();
            long expectedSize = orDefault(filter.getExpectedSize(), defaults.getExpectedSize());
            double errorRate = orDefault(filter.getErrorRate(), defaults.getErrorRate());
            FilterSizing sizing = validateSize(prefix, expectedSize, errorRate);
            BackendType backend = orDefault(filter.getBackend(), defaults.getBackend());
            FilterType type = orDefault(filter.getType(), defaults.getType());
            GrowthPolicy growth = orDefault(filter.getGrowth(), defaults.getGrowth());
            if (filter.isPutsOnly()) {
                growth = putsOnlyGrowth(name, prefix, filter, backend, type, growth);
            }
            checkTypeAndGrowth(name, prefix, filter, backend, type, growth);
            // What is allocated at startup: a scalable filter's first layer is sized for a lower error rate.
            FilterSizing allocated = (growth == GrowthPolicy.SCALE)
                    ? validateSize(prefix, expectedSize, ScalableSizing.of(expectedSize, errorRate).layerErrorRate(0))
                    : sizing;
            long bytes = (type == FilterType.COUNTING) ? CountingBlockLayout.byteSize(allocated) : allocated.byteSize();
            long maxBlocks = (type == FilterType.COUNTING) ? LocalCountingFilter.MAX_BLOCKS : LocalBloomFilter.MAX_BLOCKS;
            if (backend == BackendType.LOCAL && allocated.blockCount() > maxBlocks) {
                throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                        "a local filter holds at most 16 GiB, and " + expectedSize + " keys at error rate " + errorRate
                                + " need " + bytes / (1L << 30) + " GiB" + (type == FilterType.COUNTING
                                        ? " of counters" : "") + "; lower it, raise error-rate,"
                                + " or use backend: redis with redis.shards");
            }
            int shards = filter.getRedis().getShards();
            long maxShards = Math.min(sizing.blockCount(), MAX_SHARDS);
            if (shards < 1 || shards > maxShards) {
                throw new InvalidBloomGuardPropertyException(prefix + ".redis.shards", shards,
                        "a whole number from 1 to " + maxShards
                                + " (each shard holds at least one 512-bit block of this filter)");
            }
            // A local filter ignores it, as it ignores shards: a profile may switch the default backend to local.
            NearCopyMode nearCopyMode = (backend == BackendType.REDIS) ? filter.getRedis().getNearCopy()
                    : NearCopyMode.OFF;
            boolean nearCopy = nearCopyMode.keepsCopy();
            String nearCopyValue = nearCopyMode.name().toLowerCase(java.util.Locale.ROOT);
            if (nearCopy && sizing.blockCount() > maxBlocks) {
                throw new InvalidBloomGuardPropertyException(prefix + ".redis.near-copy", nearCopyValue,
                        "a near copy is held in each instance's heap, at most 16 GiB, and " + expectedSize
                                + " keys at error rate " + errorRate + " need " + bytes / (1L << 30)
                                + " GiB; set it to off, lower expected-size or raise error-rate");
            }
            if (backend == BackendType.REDIS && growth == GrowthPolicy.SCALE) {
                checkRedisLayers(prefix, shards, allocated, expectedSize, errorRate);
            }
            long heap = Runtime.getRuntime().maxMemory();
            // A redis filter is built in this JVM before it is uploaded, so it needs the heap too, beside its near
            // copy if it keeps one. A switched-off filter allocates nothing, and must not stop an application that
            // was switched off to save memory.
            long needed = nearCopy ? 2 * bytes : bytes;
            if (properties.isEnabled() && needed > heap) {
                throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                        "a filter of " + expectedSize + " keys at error rate " + errorRate + " needs "
                                + bytes / (1 << 20) + " MiB" + (nearCopy ? " twice (its near copy, and"
                                + " the bits of a rebuild)" : "") + ", more than the heap (" + heap / (1 << 20)
                                + " MiB); lower it, raise error-rate" + (nearCopy ? ", turn redis.near-copy off" : "")
                                + " or give the JVM more memory");
            }
            heapBudget.add(name, backend, bytes, nearCopy);
            String sql = filter.getPreload().getSql();
            if (sql != null && sql.isBlank()) {
                throw new InvalidBloomGuardPropertyException(prefix + ".preload.sql", "",
                        "a query whose first column yields the keys, e.g. SELECT id FROM users; or leave it out");
            }
            String cron = rebuildCron(prefix, filter.getRebuild(), defaults.getRebuild());
            if (filter.isPutsOnly()) {
                refuseKeySourceSettings(name, prefix, filter);
                cron = null; // the defaults' schedule is for filters that have a key source
            }
            specs.add(new FilterSpec(name, expectedSize, errorRate, backend,
                    orDefault(filter.getMode(), defaults.getMode()),
                    orDefault(filter.getOnBackendFailure(), defaults.getOnBackendFailure()),
                    orDefault(filter.getOnAddFailure(), defaults.getOnAddFailure()), sql, shards, cron,
                    rebuildZone(prefix, filter.getRebuild(), defaults.getRebuild()), type, growth, nearCopyMode,
                    filter.isPutsOnly(), rebuildHoldBelow(prefix, filter.getRebuild(), defaults.getRebuild())));
        }
        if (properties.isEnabled()) {
            heapBudget.check(Runtime.getRuntime().maxMemory());
        }
        return List.copyOf(specs);
    }

    /**
     * Refuses what cannot be (a counting filter that grows by layers: a remove could not tell which layer holds the
     * key's counts), naming the property set.
     */
    private static void checkTypeAndGrowth(String name, String prefix, FilterProperties filter,
            BackendType backend, FilterType type, GrowthPolicy growth) {
        String growthProperty = (filter.getGrowth() != null) ? prefix + ".growth" : "bloom-guard.defaults.growth";
        if (type == FilterType.COUNTING && growth == GrowthPolicy.SCALE) {
            throw new InvalidBloomGuardPropertyException(growthProperty, "scale", "a counting filter cannot grow by"
                    + " layers, because a remove could not tell which layer holds the key's counts: use growth:"
                    + " rebuild or none for filter '" + name + "', or type: bloom");
        }
    }

    /**
     * A filter filled by puts alone has no key source to rebuild from, so it grows by layers: {@code growth: rebuild}
     * set on it is refused, and inherited from the defaults becomes {@code scale}, or {@code none} where layers cannot
     * be (a counting filter; a redis filter split into shards or with a near copy), which then reports being over
     * capacity.
     */
    private static GrowthPolicy putsOnlyGrowth(String name, String prefix, FilterProperties filter,
            BackendType backend, FilterType type, GrowthPolicy growth) {
        if (filter.getGrowth() == GrowthPolicy.REBUILD) {
            throw new InvalidBloomGuardPropertyException(prefix + ".growth", "rebuild", "filter '" + name + "' is"
                    + " filled by puts alone (puts-only: true), so it has no key source to rebuild from, and a"
                    + " rebuild would empty it: use growth: scale (it adds layers) or none");
        }
        if (growth != GrowthPolicy.REBUILD) {
            return growth;
        }
        boolean layersFit = type == FilterType.BLOOM && (backend == BackendType.LOCAL
                || filter.getRedis().getShards() == 1);
        if (!layersFit) {
            logger.info("Filter '" + name + "' is filled by puts alone and cannot grow by layers (" + (type
                    == FilterType.COUNTING ? "a counting filter" : "redis.shards") + "): past"
                    + " its expected size it reports being over capacity (growth: none)");
        }
        return layersFit ? GrowthPolicy.SCALE : GrowthPolicy.NONE;
    }

    /** A filter filled by puts alone declares no key source and no rebuild schedule of its own. */
    private static void refuseKeySourceSettings(String name, String prefix, FilterProperties filter) {
        if (filter.getPreload().getSql() != null) {
            throw new InvalidBloomGuardPropertyException(prefix + ".preload.sql", filter.getPreload().getSql(),
                    "filter '" + name + "' is declared filled by puts alone (puts-only: true), so it has no key"
                            + " source: leave preload.sql out, or remove puts-only if the query yields every key");
        }
        if (filter.getRebuild().getCron() != null) {
            throw new InvalidBloomGuardPropertyException(prefix + ".rebuild.cron", filter.getRebuild().getCron(),
                    "filter '" + name + "' is filled by puts alone (puts-only: true): a rebuild would empty it, so"
                            + " it has no schedule; leave rebuild.cron out");
        }
    }

    /** The share below which a rebuild's keys are held back: the filter's, the defaults', or 0.5; from 0 to 1. */
    private static double rebuildHoldBelow(String prefix, RebuildProperties own, RebuildProperties defaults) {
        String property = (own.getHoldBelow() != null) ? prefix + ".rebuild.hold-below"
                : "bloom-guard.defaults.rebuild.hold-below";
        Double share = (own.getHoldBelow() != null) ? own.getHoldBelow() : defaults.getHoldBelow();
        if (share == null) {
            return FilterSpec.DEFAULT_REBUILD_HOLD_BELOW;
        }
        if (!(share >= 0 && share <= 1)) {
            throw new InvalidBloomGuardPropertyException(property, share, "a share from 0 to 1 of the live filter's"
                    + " keys, e.g. 0.5 (0 swaps in every rebuild, however few keys it read)");
        }
        return share;
    }

    /**
     * A redis filter that grows by layers keeps every layer in its hash slot, each layer one Redis string.
     */
    private static void checkRedisLayers(String prefix, int shards, FilterSizing firstLayer,
            long expectedSize, double errorRate) {
        if (shards != 1) {
            throw new InvalidBloomGuardPropertyException(prefix + ".redis.shards", shards, "a filter that grows by"
                    + " layers (growth: scale) keeps its layers in one hash slot, so it is not split: set it to 1, or"
                    + " use growth: rebuild");
        }
        if (firstLayer.blockCount() > RedisFilterBackend.MAX_BLOCKS_PER_KEY) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize, "a filter that grows"
                    + " by layers (growth: scale) keeps each layer in one Redis string of at most 512 MiB, and its"
                    + " first layer for " + expectedSize + " keys at error rate " + errorRate + " needs "
                    + firstLayer.byteSize() / (1 << 20) + " MiB; lower it, or use growth: rebuild with redis.shards");
        }
    }

    /** The filter's rebuild schedule, or the defaults'; refused, naming the property, unless it parses. */
    private static @Nullable String rebuildCron(String prefix, RebuildProperties own,
            RebuildProperties defaults) {
        String property = (own.getCron() != null) ? prefix + ".rebuild.cron" : "bloom-guard.defaults.rebuild.cron";
        String cron = (own.getCron() != null) ? own.getCron() : defaults.getCron();
        if (cron == null) {
            return null;
        }
        try {
            org.springframework.scheduling.support.CronExpression.parse(cron);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidBloomGuardPropertyException(property, cron, "a cron expression of six fields (second"
                    + " minute hour day-of-month month day-of-week), e.g. \"0 0 4 * * *\" for 4 a.m. daily, or a macro"
                    + " such as @daily (" + ex.getMessage() + ")");
        }
        return cron;
    }

    private static @Nullable String rebuildZone(String prefix, RebuildProperties own,
            RebuildProperties defaults) {
        String property = (own.getZone() != null) ? prefix + ".rebuild.zone" : "bloom-guard.defaults.rebuild.zone";
        String zone = (own.getZone() != null) ? own.getZone() : defaults.getZone();
        if (zone == null) {
            return null;
        }
        try {
            java.time.ZoneId.of(zone);
        }
        catch (java.time.DateTimeException ex) {
            throw new InvalidBloomGuardPropertyException(property, zone, "a time zone ID such as UTC or Europe/Paris");
        }
        return zone;
    }

    /**
     * What the filters need of the heap together, where each alone fits: a local filter's bits stay there for good,
     * and so does a redis filter's near copy; a redis filter's bits are built there before they are uploaded, one
     * filter at a time at startup (background rebuilds after Redis lost its data may overlap; docs/properties.md says
     * so). More than the heap is an OutOfMemoryError part way through startup, so it is refused with the sizes
     * instead.
     */
    private static final class HeapBudget {

        private final List<String> local = new ArrayList<>();
        private final List<String> nearCopies = new ArrayList<>();
        private long residentBytes;
        private String largestRedis;
        private long largestRedisBytes;

        void add(String name, BackendType backend, long bytes, boolean nearCopy) {
            String sized = name + " (" + mib(bytes) + " MiB)";
            if (backend == BackendType.LOCAL) {
                local.add(sized);
                residentBytes += bytes;
                return;
            }
            if (nearCopy) {
                nearCopies.add(sized);
                residentBytes += bytes;
            }
            if (bytes > largestRedisBytes) {
                largestRedis = sized;
                largestRedisBytes = bytes;
            }
        }

        void check(long heap) {
            long needed = residentBytes + largestRedisBytes;
            if (needed <= heap) {
                return;
            }
            List<String> parts = new ArrayList<>();
            if (!local.isEmpty()) {
                parts.add("the local filters " + String.join(", ", local));
            }
            if (!nearCopies.isEmpty()) {
                parts.add("the near copies of " + String.join(", ", nearCopies));
            }
            if (largestRedis != null) {
                parts.add("the largest redis filter while it is built, " + largestRedis);
            }
            List<String> resident = new ArrayList<>(local);
            resident.addAll(nearCopies);
            throw new InvalidBloomGuardPropertyException("bloom-guard.filters", String.join(", ", resident),
                    String.join(" and ", parts) + ", need " + mib(needed) + " MiB together, more than the heap ("
                            + mib(heap) + " MiB); lower their expected-size, raise their error-rate, move one to"
                            + " backend: redis" + (nearCopies.isEmpty() ? "" : ", turn a redis.near-copy off")
                            + ", or give the JVM more memory");
        }

        private static long mib(long bytes) {
            return bytes / (1 << 20);
        }
    }

    /** {@code bloom-guard.redis.*}, validated. */
    static RedisBackendSettings redisSettings(RedisBackendProperties redis) {
        String prefix = "bloom-guard.redis";
        if (redis.getKeyPrefix() == null || redis.getKeyPrefix().contains("{") || redis.getKeyPrefix().contains("}")) {
            throw new InvalidBloomGuardPropertyException(prefix + ".key-prefix", redis.getKeyPrefix(),
                    "a key prefix without '{' or '}' (bloom-guard adds its own hash tags), e.g. 'bloom-guard:'");
        }
        positive(prefix + ".check-timeout", redis.getCheckTimeout());
        positive(prefix + ".command-timeout", redis.getCommandTimeout());
        positive(prefix + ".breaker-window", redis.getBreakerWindow());
        positive(prefix + ".breaker-open-wait", redis.getBreakerOpenWait());
        positive(prefix + ".probe-interval", redis.getProbeInterval());
        positive(prefix + ".reconnect-delay", redis.getReconnectDelay());
        if (redis.getBreakerFailureRate() < 1 || redis.getBreakerFailureRate() > 100) {
            throw new InvalidBloomGuardPropertyException(prefix + ".breaker-failure-rate", redis.getBreakerFailureRate(),
                    "a percentage from 1 to 100, e.g. 50");
        }
        if (redis.getBreakerMinimumCalls() < 1) {
            throw new InvalidBloomGuardPropertyException(prefix + ".breaker-minimum-calls",
                    redis.getBreakerMinimumCalls(), "a number of calls, 1 or more, e.g. 10");
        }
        positive(prefix + ".lock-ttl", redis.getLockTtl());
        positive(prefix + ".refresh-interval", redis.getRefreshInterval());
        if (redis.getRebuildGrace() == null || redis.getRebuildGrace().isNegative()) {
            throw new InvalidBloomGuardPropertyException(prefix + ".rebuild-grace", redis.getRebuildGrace(),
                    "a duration of zero or more, e.g. 1s");
        }
        if (redis.getRebuildGrace().isZero()) {
            logger.warn("bloom-guard.redis.rebuild-grace is 0: a write whose key reaches a redis filter just before a"
                    + " rebuild begins, and whose transaction commits after the rebuild has read the key source, is"
                    + " missing from the rebuilt filter, which may reject it until the next rebuild; give it at least"
                    + " the longest transaction that puts a key (default 1s)");
        }
        if (redis.getPendingAddsLimit() < 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".pending-adds-limit", redis.getPendingAddsLimit(),
                    "a number of keys, zero or more");
        }
        RedisBreakerSettings breaker = new RedisBreakerSettings(redis.getBreakerFailureRate(),
                redis.getBreakerMinimumCalls(), redis.getBreakerWindow(), redis.getBreakerOpenWait());
        return new RedisBackendSettings(redis.getKeyPrefix(), redis.getCheckTimeout(), redis.getCommandTimeout(),
                breaker, redis.getLockTtl(), redis.getRefreshInterval(), redis.getPendingAddsLimit(),
                redis.getRebuildGrace(), redis.getProbeInterval(), redis.getReconnectDelay());
    }

    private static void positive(String property, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new InvalidBloomGuardPropertyException(property, value, "a positive duration, e.g. 50ms or 2s");
        }
    }

    private static FilterSizing validateSize(String prefix, long expectedSize, double errorRate) {
        if (expectedSize <= 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                    "a whole number of keys, at least 1");
        }
        if (!(errorRate > 0.0 && errorRate < 1.0)) {
            throw new InvalidBloomGuardPropertyException(prefix + ".error-rate", errorRate,
                    "a probability greater than 0 and less than 1, e.g. 0.01 for 1%");
        }
        try {
            return FilterSizing.of(expectedSize, errorRate);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize, ex.getMessage());
        }
    }

    private static <T> T orDefault(T value, T fallback) {
        return (value != null) ? value : fallback;
    }
}
