package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/** The backend contract for a counting filter ({@code type: counting}) on one real {@code redis-server}. */
class RedisCountingFilterContractIT extends BloomFilterContractTest {

    private static final AtomicInteger names = new AtomicInteger();

    private static RedisServerProcess server;
    private static TestRedisBackend redis;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
        redis = TestRedisBackend.on(server, TestRedisBackend.FAST);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
        server.close();
    }

    /**
     * A quarter of the keys: the local counting suite proves the counters' layout at full size;
     * this one proves them in Redis.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        RedisBloomFilter filter = redis.backend.createCounting("counting-contract-" + names.incrementAndGet(), sizing,
                seed, 1);
        SharedBloomFilter.StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        return filter;
    }
}
