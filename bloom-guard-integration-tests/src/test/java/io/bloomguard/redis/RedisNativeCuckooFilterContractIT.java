package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backend contract on the server's own cuckoo filter ({@code type: cuckoo}, {@code redis.kind: native},
 * {@code CF.*}), on a {@code redis-server} with the RedisBloom module (skipped without one: set
 * {@code REDISBLOOM_MODULE}). Adapted as the native Bloom filter's: no seed, and a count of keys that depends on their
 * order (a put that meets a matching fingerprint adds a copy, not a key).
 */
@ExtendWith(RedisServerExtension.class)
class RedisNativeCuckooFilterContractIT extends BloomFilterContractTest {

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(@WithRedisBloom RedisServerProcess server) {
        redis = TestRedisBackend.on(server, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        if (redis != null) {
            redis.close();
        }
    }

    /** Half the keys, as for the bitmap: each call is a round trip. */
    @Override
    protected int scaleDown() {
        return 2;
    }

    /** The server hashes the keys' text: the filter has no seed. */
    @Override
    protected boolean hashesWithItsSeed() {
        return false;
    }

    /** {@code CF.INFO} counts the copies the server holds. */
    @Override
    protected boolean countDependsOnOrder() {
        return true;
    }

    /** A key is held once a put, at most twice: a key put again and again stays until a rebuild. */
    @Override
    protected long expectedCount(long distinctKeys, long puts) {
        return Math.min(puts, 2 * distinctKeys);
    }

    /**
     * 8-bit fingerprints in buckets of two: a check matches one of the 4 slots of its two buckets with chance 1/256
     * each, at load α = keys / the capacity the kind reserves ({@code expected-size / min(0.8, 64 · 0.95 ε)}).
     */
    @Override
    protected double modelFalsePositiveRate(FilterSizing sizing, long keys) {
        double capacity = sizing.expectedSize() / Math.min(0.8, 64 * FilterSizing.DESIGN_MARGIN * sizing.errorRate());
        return Math.min(1, keys / capacity) * 4 / 256;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name("native-cf"),
                RedisFilterSpec.builder(RedisKinds.NATIVE_CUCKOO, sizing).seed(seed).build()));
    }
}
