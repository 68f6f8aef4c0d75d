package io.bloomguard.benchmarks;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.redisson.Redisson;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the Redis benchmarks share: the filter shape (n = 10^6, ε = 0.01), the keys (the Long keys of
 * {@link BenchmarkKeys}: present keys are {@code present(0..n-1)}), bloom-guard's backend settings, and clients
 * for bloom-guard (its own Lettuce connection), for plain commands (a Lettuce sync connection) and for Redisson
 * (defaults: Kryo5 codec, script cache on, a pool of up to 64 connections).
 */
final class RedisFixtures {

    static final long N = 1_000_000;

    static final double FPP = 0.01;

    static final int SEED = 0x5EED;

    /** Keys per batch handed over by {@link #feed}, and per Redisson {@code add(Collection)} when preloading. */
    static final int LOAD_BATCH = 10_000;

    private RedisFixtures() {
    }

    /**
     * A generous check timeout (1 s instead of 50 ms: loopback round trips on a loaded 2-core VM sometimes take
     * milliseconds, and a timeout would make a check answer "might contain" without asking Redis), no rebuild
     * grace (nothing else writes), and a refresh every hour so that only the measured commands reach Redis.
     */
    static RedisBackendSettings settings() {
        return RedisBackendSettingsBuilder.from(RedisBackendSettings.defaults())
                .keyPrefix("bench:")
                .checkTimeout(Duration.ofSeconds(1))
                .commandTimeout(Duration.ofSeconds(30))
                .lockTtl(Duration.ofSeconds(60))
                .refreshInterval(Duration.ofHours(1))
                .rebuildGrace(Duration.ZERO)
                .build();
    }

    static RedisClient lettuce(RedisServerProcess server) {
        return RedisClient.create(RedisURI.create(server.host(), server.port()));
    }

    static RedisFilterBackend backend(RedisClient client) {
        return new RedisFilterBackend(() -> LettuceRedisPort.connect(client), settings());
    }

    static RedissonClient redisson(RedisServerProcess server) {
        return redisson(server.host(), server.port());
    }

    static RedissonClient redisson(String host, int port) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        return Redisson.create(config);
    }

    /** The first {@code n} present keys, in memory. */
    static List<Object> presentKeys(long n) {
        List<Object> keys = new ArrayList<>(Math.toIntExact(n));
        for (long i = 0; i < n; i++) {
            keys.add(BenchmarkKeys.LONG.present(i));
        }
        return keys;
    }

    /** A key source over keys already in memory, in batches of {@link #LOAD_BATCH}. */
    static KeyFeed feed(List<Object> keys) {
        return batches -> {
            for (int from = 0; from < keys.size(); from += LOAD_BATCH) {
                batches.accept(keys.subList(from, Math.min(keys.size(), from + LOAD_BATCH)));
            }
            return keys.size();
        };
    }

    /** A bloom-guard Redis filter (one shard) loaded with {@code keys}; fails unless it is ready. */
    static RedisBloomFilter loadedBloomGuard(RedisFilterBackend backend, String name, long n, List<Object> keys) {
        return loadedBloomGuard(backend, name, n, keys, false);
    }

    /**
     * {@link #loadedBloomGuard(RedisFilterBackend, String, long, List)}, with a near copy if {@code nearCopy}: then it
     * returns once the copy has been read, and answers the keys it holds.
     */
    static RedisBloomFilter loadedBloomGuard(RedisFilterBackend backend, String name, long n, List<Object> keys,
            boolean nearCopy) {
        return loadedBloomGuard(backend, name, n, keys, nearCopy ? NearCopyMode.ON : NearCopyMode.OFF);
    }

    /**
     * {@link #loadedBloomGuard(RedisFilterBackend, String, long, List)} with a near copy as {@code nearCopy} says: it
     * returns once the copy has been read and, when {@code ordered}, is in step.
     */
    static RedisBloomFilter loadedBloomGuard(RedisFilterBackend backend, String name, long n, List<Object> keys,
            NearCopyMode nearCopy) {
        RedisBloomFilter filter = backend.create(name, FilterSizing.of(n, FPP), SEED, 1, AddFailurePolicy.BUFFER,
                nearCopy);
        SharedBloomFilter.StartOutcome outcome = filter.start(feed(keys));
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE || filter.status() != SharedFilterStatus.READY) {
            throw new IllegalStateException("filter " + name + " not loaded: " + outcome + ", " + filter.status());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (nearCopy.keepsCopy() && !(filter.details().nearCopy().answering()
                && (nearCopy != NearCopyMode.ORDERED && nearCopy != NearCopyMode.LEASED
                        || !filter.details().nearCopy().absentKeys().equals("store")))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the near copy of " + name + " was not read within 60 s");
            }
            Thread.onSpinWait();
        }
        return filter;
    }

    /** A Redisson filter ({@code tryInit(n, ε)}) loaded with {@code keys} by {@code add(Collection)} in batches. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static RBloomFilter<Object> loadedRedisson(RedissonClient redisson, String name, long n, List<Object> keys) {
        RBloomFilter<Object> filter = redisson.getBloomFilter(name);
        filter.delete();
        if (!filter.tryInit(n, FPP)) {
            throw new IllegalStateException("Redisson filter " + name + " exists already");
        }
        for (int from = 0; from < keys.size(); from += LOAD_BATCH) {
            filter.add((List) keys.subList(from, Math.min(keys.size(), from + LOAD_BATCH)));
        }
        return filter;
    }

    /** 2^16 probes, half present and half absent, shuffled: the same for every kind of check. */
    static Object[] probes(int count) {
        return BenchmarkKeys.LONG.probes(N, count, 0xB0B);
    }

    /** {@code count} consecutive lists of {@code size} probes. */
    static List<List<Object>> batches(Object[] probes, int size, int count) {
        if ((long) size * count > probes.length) {
            throw new IllegalArgumentException(size + " × " + count + " > " + probes.length + " probes");
        }
        List<List<Object>> batches = new ArrayList<>(count);
        for (int b = 0; b < count; b++) {
            batches.add(List.of(java.util.Arrays.copyOfRange(probes, b * size, (b + 1) * size)));
        }
        return batches;
    }

    static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
