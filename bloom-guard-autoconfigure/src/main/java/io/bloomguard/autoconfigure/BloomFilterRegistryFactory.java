package io.bloomguard.autoconfigure;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.LocalCuckooFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.local.ScalableLocalFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.RedisFilterSpec;
import io.bloomguard.redis.RedisKindChoice;
import io.bloomguard.redis.RedisKinds;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.BackgroundRebuilds;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.DisabledBloomFilter;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterSpecCustomizer;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.RedisFilterKind;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.aot.AbstractAotProcessor;

import java.util.List;
import java.util.function.Supplier;

/** Builds the registry's filters from their specs, on the backend each one names. */
final class BloomFilterRegistryFactory {

    private static final Log logger = LogFactory.getLog(BloomFilterRegistryFactory.class);

    private BloomFilterRegistryFactory() {
    }

    /**
     * Pause between a local rebuild's start (from when puts reach the new bits too) and its read of the key source:
     * writes whose puts went only to the old bits commit meanwhile, and the read finds their rows.
     */
    static final java.time.Duration LOCAL_REBUILD_GRACE = java.time.Duration.ofSeconds(1);

    /**
     * Every filter starts {@code LOADING} (the preload decides when it is ready). When bloom-guard is switched
     * off, every filter is {@code DISABLED} and holds no bits: no backend is created, local or Redis. So it is during
     * ahead-of-time processing, which creates the registry only to check the annotations and decide the proxies:
     * the build needs neither the filters' memory nor their Redis.
     *
     * @param redis the Redis backend, asked for only when a filter uses it; {@code null} when the application
     *              has no Spring Data Redis with Lettuce
     * @param customizers the application's customizers of filter specs, in bean order
     * @param threads the threads the filters rebuild on in the background
     */
    static BloomFilterRegistry create(BloomGuardSettings settings, List<FilterSpecCustomizer> customizers,
            Supplier<RedisFilterBackend> redis, BloomGuardThreads threads) {
        boolean holdsBits = settings.enabled() && !Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING);
        List<FilterSpec> specs = FilterSpecCustomizers.apply(settings.filters(), customizers, settings.enabled());
        if (specs != settings.filters()) {
            settings.showResolved(specs);
        }
        BackgroundRebuilds background = new BackgroundRebuilds(
                () -> threads.scheduledExecutor("bloom-guard-background-rebuild"));
        List<NamedBloomFilter> filters = specs.stream().map(spec -> holdsBits
                ? new NamedBloomFilter(spec, backendFilter(spec, redis), FilterState.LOADING, background)
                : new NamedBloomFilter(spec, new DisabledBloomFilter(sizing(spec)), FilterState.DISABLED, background))
                .toList();
        return new FixedBloomFilterRegistry(filters, background);
    }

    private static BloomFilter backendFilter(FilterSpec spec, Supplier<RedisFilterBackend> redis) {
        FilterSizing sizing = sizing(spec);
        return (spec.backend() instanceof FilterSpec.Redis options) ? redisFilter(spec, options, sizing, redis)
                : localFilter(spec, sizing);
    }

    private static BloomFilter redisFilter(FilterSpec spec, FilterSpec.Redis options, FilterSizing sizing,
            Supplier<RedisFilterBackend> redis) {
        RedisFilterBackend backend = redis.get();
        if (backend == null) {
            throw new InvalidBloomGuardPropertyException("bloom-guard.filters." + spec.name() + ".backend",
                    "redis", "the redis backend needs Spring Data Redis with Lettuce: add the dependency"
                            + " org.springframework.boot:spring-boot-starter-data-redis and point"
                            + " spring.data.redis.* at your Redis; or use backend local");
        }
        RedisKind server = (spec.sizing().type() == FilterType.CUCKOO) ? RedisKinds.NATIVE_CUCKOO
                : RedisKinds.NATIVE_BLOOM;
        boolean layered = spec.sizing().growth() == GrowthPolicy.SCALE;
        RedisKind kind = layered ? RedisKinds.LAYERED
                : (spec.sizing().type() == FilterType.COUNTING) ? RedisKinds.COUNTING : RedisKinds.BLOOM;
        if (options.kind() == RedisFilterKind.AUTO && spec.sizing().type() != FilterType.CUCKOO) {
            kind = chooseKind(spec, backend, server, kind);
        }
        else if (options.kind() == RedisFilterKind.AUTO) {
            kind = server; // no bitmap cuckoo filter: nothing to decide, and no Redis needed to start
        }
        else if (options.kind() == RedisFilterKind.NATIVE) {
            kind = server;
        }
        if (options.key() != null) {
            // Another program's filter: FilterSpecRules made sure it is native, never rebuilt here.
            return backend.createForeign(spec.name(), options.key(), server, sizing, spec.writes().onAddFailure());
        }
        if (kind == server) {
            // The server's filter scales by itself (growth: scale) and is one key: FilterSpecRules refused the rest.
            return backend.create(spec.name(), RedisFilterSpec.builder(server, sizing).shards(1)
                    .onAddFailure(spec.writes().onAddFailure()).build());
        }
        FilterSizing stored = layered
                ? ScalableSizing.of(spec.sizing().expectedSize(), spec.sizing().errorRate()).layer(0) : sizing;
        return backend.create(spec.name(), RedisFilterSpec.builder(kind, stored).shards(layered ? 1 : options.shards())
                .onAddFailure(spec.writes().onAddFailure()).nearCopy(options.nearCopy()).build());
    }

    /**
     * {@code redis.kind: auto}, decided now, before the filter exists, so that its configured shape is one from the
     * start: the stored filter's family, or the server's kind when the server has it.
     */
    private static RedisKind chooseKind(FilterSpec spec, RedisFilterBackend backend, RedisKind server,
            RedisKind bitmap) {
        RedisKindChoice choice;
        try {
            choice = backend.chooseKind(spec.name(), server, bitmap);
        }
        catch (RedisUnavailableException ex) {
            throw new InvalidBloomGuardPropertyException("bloom-guard.filters." + spec.name() + ".redis.kind", "auto",
                    "native or bitmap: auto decides from Redis when the application starts, and Redis did not answer ("
                            + ex.getMessage() + "); start Redis, check spring.data.redis.*, or set the kind so that"
                            + " the application starts without Redis");
        }
        RedisKind kind = choice.kind();
        logger.info("Filter '" + spec.name() + "' (redis.kind: auto) is " + ((kind == server)
                ? "the server's own filter (BF.*)"
                : "bloom-guard's bitmap") + ": " + choice.reason());
        return kind;
    }

    /** Counting or cuckoo with scale was refused when the spec was resolved. */
    private static RebuildableLocalFilter localFilter(FilterSpec spec, FilterSizing sizing) {
        if (spec.sizing().growth() == GrowthPolicy.SCALE) {
            return new RebuildableLocalFilter(ScalableSizing.of(spec.sizing().expectedSize(), spec.sizing().errorRate()).layer(0),
                    LOCAL_REBUILD_GRACE, ScalableLocalFilter::create);
        }
        if (spec.sizing().type() == FilterType.COUNTING) {
            return new RebuildableLocalFilter(sizing, LOCAL_REBUILD_GRACE, LocalCountingFilter::create);
        }
        if (spec.sizing().type() == FilterType.CUCKOO) {
            return new RebuildableLocalFilter(sizing, LOCAL_REBUILD_GRACE, LocalCuckooFilter::create);
        }
        return new RebuildableLocalFilter(sizing, LOCAL_REBUILD_GRACE);
    }

    private static FilterSizing sizing(FilterSpec spec) {
        return spec.sizing().configured();
    }
}
