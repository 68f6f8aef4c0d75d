package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend contract for a filter that grows by layers ({@code growth: scale}) on one real {@code redis-server}:
 * each is given the sizing a local scalable filter takes as layer 0, as {@code ScalableLocalFilterTest} does.
 */
class RedisScalableFilterContractIT extends BloomFilterContractTest {

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

    /** A quarter of the keys: each check is a script, and the local suite proves the layers at full size. */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        RedisBloomFilter filter = redis.backend.createScalable("scalable-contract-" + names.incrementAndGet(), sizing,
                seed, UnwritableAdds.BUFFER);
        SharedBloomFilter.StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        return filter;
    }
}
