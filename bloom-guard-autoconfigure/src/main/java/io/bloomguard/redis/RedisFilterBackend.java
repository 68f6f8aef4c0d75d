package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.redis.engine.EngineSettings;
import io.bloomguard.redis.engine.FilterOptions;
import io.bloomguard.redis.engine.RedisEngine;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.RedisUnavailableException;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The Redis filters of one application: they share one connection, circuit breakers, threads and a recovery probe
 * ({@link RedisEngine}), and every kind a stored filter may be of is registered here.
 *
 * <p>Usage: {@code try (RedisFilterBackend redis = new RedisFilterBackend(() -> LettuceRedisPort.connect(client),
 * RedisBackendSettings.defaults())) { RedisBloomFilter users = redis.create("users", sizing, 1); ... }}
 *
 * @since 0.1.0
 */
public final class RedisFilterBackend implements AutoCloseable {

    /**
     * Blocks one Redis key holds at most: a string holds 2³² bits (512 MiB). A filter that grows by layers keeps each
     * layer in one key.
     */
    public static final long MAX_BLOCKS_PER_KEY = BlockKind.MAX_BIT_BLOCKS_PER_SHARD;

    private final RedisBackendSettings settings;
    private final RedisEngine engine;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A backend on daemon platform threads of its own, for use without Spring. */
    public RedisFilterBackend(Supplier<RedisPort> connector, RedisBackendSettings settings) {
        this(connector, settings, maintenanceThread(),
                Executors.newCachedThreadPool(daemon("bloom-guard-redis-build")));
    }

    /**
     * A backend on the threads its application chose (virtual ones, say); it owns them from now on and shuts them
     * down in {@link #close()}.
     *
     * @param maintenance one thread (periodic work runs one task at a time): refreshes, the recovery probe, replays
     *                    and lock renewals; cancelled tasks should leave its queue
     * @param builders    a thread for each build or reconnect under way (never a queue: a build must not wait for
     *                    another to finish)
     */
    public RedisFilterBackend(Supplier<RedisPort> connector, RedisBackendSettings settings,
            ScheduledExecutorService maintenance, ExecutorService builders) {
        this.settings = settings;
        this.engine = new RedisEngine(connector, engineSettings(settings), maintenance, builders, RedisKinds.ALL);
    }

    /**
     * A filter as {@code spec} says: the one way every other {@code create} here goes.
     *
     * @param name the filter's name: part of its Redis keys, shared by every instance that creates it
     */
    public RedisBloomFilter create(String name, RedisFilterSpec spec) {
        return new RedisBloomFilter(name, engine.filter(name, spec.sizing(), new FilterOptions(spec.seed(),
                spec.shards(), spec.kind(), spec.onAddFailure(), spec.nearCopy())));
    }

    /**
     * For {@code redis.kind: auto}: {@code serverKind} (one of the server's own, such as
     * {@link RedisKinds#NATIVE_BLOOM}) or else {@code bitmapKind}, so that every instance decides alike. A filter already
     * stored stays in the family it is stored as; one not stored yet is the server's when the server has its
     * commands. Tries Redis a few times, {@link RedisBackendSettings#reconnectDelay()} apart.
     *
     * @throws IllegalArgumentException  when {@code serverKind} is not one of the server's own
     * @throws RedisUnavailableException when Redis did not answer
     */
    public RedisKindChoice chooseKind(String name, RedisKind serverKind, RedisKind bitmapKind) {
        if (!(serverKind instanceof ServerKind server)) {
            throw new IllegalArgumentException(serverKind + " is not one of the server's own kinds");
        }
        RedisEngine.KindDecision decision = engine.chooseKind(name, server);
        return new RedisKindChoice(decision.server() ? serverKind : bitmapKind, decision.reason());
    }

    /**
     * A filter of the server's own that another program created and fills under {@code key} (no key prefix: the
     * owner's name): this instance checks it and adds its writes' keys to it, and never creates, rebuilds or deletes
     * it. Ready while the key holds a filter of {@code kind} with at least the room and at most the error rate of
     * {@code declared}; it keeps its own metadata (an incomplete mark) under this backend's key prefix.
     *
     * @param kind {@link RedisKinds#NATIVE_BLOOM} or {@link RedisKinds#NATIVE_CUCKOO}
     * @throws IllegalArgumentException when {@code kind} is not one of the server's own
     */
    public SharedBloomFilter createForeign(String name, String key, RedisKind kind, FilterSizing declared,
            AddFailurePolicy onAddFailure) {
        if (!(kind instanceof ServerKind server)) {
            throw new IllegalArgumentException(kind + " is not one of the server's own kinds");
        }
        return engine.foreign(name, key, server, declared, onAddFailure);
    }

    // The overloads below are shorthands for create(name, spec), kept for the code written against them.

    /** A filter with a random seed (used only if this instance is the one that creates it in Redis). */
    public RedisBloomFilter create(String name, FilterSizing sizing, int shards) {
        return create(name, plain(sizing).shards(shards).build());
    }

    /** A filter with a random seed whose puts do as {@code onAddFailure} says when Redis does not answer. */
    public RedisBloomFilter create(String name, FilterSizing sizing, int shards, AddFailurePolicy onAddFailure) {
        return create(name, plain(sizing).shards(shards).onAddFailure(onAddFailure).build());
    }

    /** A filter with a chosen seed for when this instance creates it: for tests and migrations. */
    public RedisBloomFilter create(String name, FilterSizing sizing, int seed, int shards) {
        return create(name, plain(sizing).seed(seed).shards(shards).build());
    }

    /** A filter with a chosen seed, whose puts do as {@code onAddFailure} says when Redis does not answer. */
    public RedisBloomFilter create(String name, FilterSizing sizing, int seed, int shards,
            AddFailurePolicy onAddFailure) {
        return create(name, plain(sizing).seed(seed).shards(shards).onAddFailure(onAddFailure).build());
    }

    /**
     * A filter with a random seed; with {@code nearCopy}, this instance keeps a copy of its bits in the heap and
     * answers the keys the copy holds without a round trip (see {@link RedisBloomFilter}).
     */
    public RedisBloomFilter create(String name, FilterSizing sizing, int shards, AddFailurePolicy onAddFailure,
            boolean nearCopy) {
        return create(name, sizing, shards, onAddFailure, nearCopy ? NearCopyMode.ON : NearCopyMode.OFF);
    }

    /** A filter with a chosen seed, and a near copy of its bits in this instance's heap if {@code nearCopy}. */
    public RedisBloomFilter create(String name, FilterSizing sizing, int seed, int shards,
            AddFailurePolicy onAddFailure, boolean nearCopy) {
        return create(name, sizing, seed, shards, onAddFailure, nearCopy ? NearCopyMode.ON : NearCopyMode.OFF);
    }

    /**
     * A filter with a random seed and a near copy as {@code nearCopy} says: with {@link NearCopyMode#ORDERED}, the
     * copy follows the adds through a subscriber connection and answers absent keys after a barrier.
     */
    public RedisBloomFilter create(String name, FilterSizing sizing, int shards, AddFailurePolicy onAddFailure,
            NearCopyMode nearCopy) {
        return create(name, plain(sizing).shards(shards).onAddFailure(onAddFailure).nearCopy(nearCopy).build());
    }

    /** {@link #create(String, FilterSizing, int, AddFailurePolicy, NearCopyMode)} with a chosen seed. */
    public RedisBloomFilter create(String name, FilterSizing sizing, int seed, int shards,
            AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {
        return create(name, plain(sizing).seed(seed).shards(shards).onAddFailure(onAddFailure).nearCopy(nearCopy)
                .build());
    }

    /**
     * A counting filter ({@code type: counting}: a 4-bit counter a position, so that keys can be removed) with a
     * random seed, and no near copy.
     */
    public RedisBloomFilter createCounting(String name, FilterSizing sizing, int shards,
            AddFailurePolicy onAddFailure) {
        return create(name, counting(sizing).shards(shards).onAddFailure(onAddFailure).build());
    }

    /**
     * A counting filter with a random seed and a near copy of its counters as {@code nearCopy} says: with
     * {@link NearCopyMode#ON} a copy whose counters may stay above Redis's after removes made elsewhere (until it is
     * read whole again: false positives), with {@link NearCopyMode#ORDERED} one that follows the removes too.
     */
    public RedisBloomFilter createCounting(String name, FilterSizing sizing, int shards,
            AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {
        return create(name, counting(sizing).shards(shards).onAddFailure(onAddFailure).nearCopy(nearCopy).build());
    }

    /** {@link #createCounting(String, FilterSizing, int, AddFailurePolicy, NearCopyMode)} with a chosen seed. */
    public RedisBloomFilter createCounting(String name, FilterSizing sizing, int seed, int shards,
            AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {
        return create(name, counting(sizing).seed(seed).shards(shards).onAddFailure(onAddFailure).nearCopy(nearCopy)
                .build());
    }

    /** A counting filter with a chosen seed for when this instance creates it: for tests and migrations. */
    public RedisBloomFilter createCounting(String name, FilterSizing sizing, int seed, int shards) {
        return create(name, counting(sizing).seed(seed).shards(shards).build());
    }

    /** A counting filter with a chosen seed, whose puts do as {@code onAddFailure} says when Redis is down. */
    public RedisBloomFilter createCounting(String name, FilterSizing sizing, int seed, int shards,
            AddFailurePolicy onAddFailure) {
        return create(name, counting(sizing).seed(seed).shards(shards).onAddFailure(onAddFailure).build());
    }

    /**
     * A filter that grows by layers ({@code growth: scale}, see {@link io.bloomguard.core.ScalableSizing}) with a
     * random seed: {@code firstLayer} is layer 0's size ({@code ScalableSizing.of(n, ε).layer(0)}); each layer after
     * it is a Redis key of its own in the same hash slot, so it lives on one shard.
     */
    public RedisBloomFilter createScalable(String name, FilterSizing firstLayer, AddFailurePolicy onAddFailure) {
        return create(name, layered(firstLayer).onAddFailure(onAddFailure).build());
    }

    /** {@link #createScalable(String, FilterSizing, AddFailurePolicy)} with a chosen seed: for tests and migrations. */
    public RedisBloomFilter createScalable(String name, FilterSizing firstLayer, int seed,
            AddFailurePolicy onAddFailure) {
        return create(name, layered(firstLayer).seed(seed).onAddFailure(onAddFailure).build());
    }

    /**
     * A filter that grows by layers with a near copy as {@code nearCopy} says: the copy holds every layer, and is read
     * whole again when a layer is added.
     */
    public RedisBloomFilter createScalable(String name, FilterSizing firstLayer, AddFailurePolicy onAddFailure,
            NearCopyMode nearCopy) {
        return create(name, layered(firstLayer).onAddFailure(onAddFailure).nearCopy(nearCopy).build());
    }

    /** {@link #createScalable(String, FilterSizing, AddFailurePolicy, NearCopyMode)} with a chosen seed. */
    public RedisBloomFilter createScalable(String name, FilterSizing firstLayer, int seed,
            AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {
        return create(name, layered(firstLayer).seed(seed).onAddFailure(onAddFailure).nearCopy(nearCopy).build());
    }

    private static RedisFilterSpec.Builder plain(FilterSizing sizing) {
        return RedisFilterSpec.builder(RedisKinds.BLOOM, sizing);
    }

    private static RedisFilterSpec.Builder counting(FilterSizing sizing) {
        return RedisFilterSpec.builder(RedisKinds.COUNTING, sizing);
    }

    private static RedisFilterSpec.Builder layered(FilterSizing firstLayer) {
        return RedisFilterSpec.builder(RedisKinds.LAYERED, firstLayer);
    }

    /** The engine reads the settings as its own record: it depends on none of the API's types. */
    private static EngineSettings engineSettings(RedisBackendSettings settings) {
        RedisBreakerSettings breaker = settings.breaker();
        EngineSettings.Breaker engineBreaker = new EngineSettings.Breaker(breaker.failureRatePercent(),
                breaker.minimumCalls(), breaker.window(), breaker.openWait());
        return new EngineSettings(settings.keyPrefix(), settings.checkTimeout(), settings.commandTimeout(),
                engineBreaker, settings.lockTtl(), settings.refreshInterval(), settings.pendingAddsLimit(),
                settings.rebuildGrace(), settings.probeInterval(), settings.reconnectDelay(), settings.replayLogSize(),
                settings.replayLogAge(), settings.waitForReplicas(), settings.waitTimeout(), settings.nearCopyLease());
    }

    public RedisBackendSettings settings() {
        return settings;
    }

    /** Whether a circuit breaker is open: Redis failed recently and calls (checks, or other commands) fail fast. */
    public boolean unavailable() {
        return engine.unavailable();
    }

    /**
     * Stops the filters' background work, then gives each filter one last attempt to write the adds it still
     * holds, or else to mark itself stale in Redis (see {@link RedisBloomFilter#close()}), all of them together
     * within {@link RedisBackendSettings#lastAttemptTimeout()}, and only then releases the connection. Call it
     * while the Redis client is still open, after the last write that puts keys. Closing again does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        engine.close();
    }

    private static ScheduledExecutorService maintenanceThread() {
        ScheduledThreadPoolExecutor maintenance = new ScheduledThreadPoolExecutor(1, daemon("bloom-guard-redis"));
        maintenance.setRemoveOnCancelPolicy(true);
        return maintenance;
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
