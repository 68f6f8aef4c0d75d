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
 * The backend contract on the server's own Bloom filter ({@code redis.kind: native}, {@code BF.*}), on a
 * {@code redis-server} with the RedisBloom module (skipped without one: set {@code REDISBLOOM_MODULE}): it never
 * answers "absent" for a key put and stays within its error rate at its expected size. Adapted in two points: it has
 * no seed (the server hashes), and its count of keys is the puts it found new, which depends on their order.
 */
@ExtendWith(RedisServerExtension.class)
class RedisNativeBloomFilterContractIT extends BloomFilterContractTest {

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

    /** {@code BF.CARD} counts the puts the server found new. */
    @Override
    protected boolean countDependsOnOrder() {
        return true;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name("native"),
                RedisFilterSpec.builder(RedisKinds.NATIVE_BLOOM, sizing).seed(seed).build()));
    }
}
