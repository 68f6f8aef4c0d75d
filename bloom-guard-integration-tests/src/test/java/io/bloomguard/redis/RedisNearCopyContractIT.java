package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

import java.time.Duration;
import java.util.concurrent.Callable;

import static org.awaitility.Awaitility.await;

/**
 * The backend contract on one real {@code redis-server} with a near copy: each filter's copy has been read before
 * the suite puts and checks, so present keys are answered by the copy, and every other check by Redis.
 */
class RedisNearCopyContractIT extends StandaloneRedisContractTest {

    /**
     * A quarter of the keys: the local suite proves the layout at full size, the plain Redis one in Redis at half;
     * this one proves the near copy beside it.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        RedisBloomFilter filter = redis.backend.create(ContractFilters.name("near"), sizing, seed, 1,
                AddFailurePolicy.BUFFER, true);
        ContractFilters.loadedHere(filter);
        awaitUntil("the near copy of " + filter.name() + " read", () -> filter.details().nearCopy().answering(),
                Duration.ofSeconds(10));
        return filter;
    }

    /** Waits for {@code condition}, polling every 10 ms as the other Redis tests do. */
    private static void awaitUntil(String what, Callable<Boolean> condition, Duration atMost) {
        await(what).atMost(atMost).pollInterval(Duration.ofMillis(10)).until(condition);
    }
}
