package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.atomic.AtomicInteger;

/** The backend contract on one real {@code redis-server}. */
@ExtendWith(RedisServerExtension.class)
class RedisBloomFilterContractIT extends BloomFilterContractTest {

    private static final AtomicInteger names = new AtomicInteger();

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(RedisServerProcess server) {
        redis = TestRedisBackend.on(server, TestRedisBackend.FAST);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        RedisBloomFilter filter = redis.backend.create("contract-" + names.incrementAndGet(), sizing, seed, 1);
        SharedBloomFilter.StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        return filter;
    }
}
