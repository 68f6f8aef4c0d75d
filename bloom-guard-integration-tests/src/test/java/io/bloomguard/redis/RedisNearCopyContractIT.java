package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Callable;

import static org.awaitility.Awaitility.await;

/**
 * The backend contract on one real {@code redis-server} with a near copy: each filter's copy has been read before
 * the suite puts and checks, so present keys are answered by the copy, and every other check by Redis.
 */
class RedisNearCopyContractIT extends BloomFilterContractTest {

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
     * A quarter of the keys: the plain Redis suite proves the layout at full size;
     * this one proves the near copy beside it.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        RedisBloomFilter filter = redis.backend.create("near-contract-" + names.incrementAndGet(), sizing, seed, 1,
                UnwritableAdds.BUFFER, true);
        SharedBloomFilter.StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        awaitUntil("the near copy of " + filter.name() + " read", () -> filter.details().nearCopy().answering(),
                Duration.ofSeconds(10));
        return filter;
    }

    /** Waits for {@code condition}, polling every 10 ms as the other Redis tests do. */
    private static void awaitUntil(String what, Callable<Boolean> condition, Duration atMost) {
        await(what).atMost(atMost).pollInterval(Duration.ofMillis(10)).until(condition);
    }
}
