package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

/** The backend contract for a counting filter ({@code type: counting}) on one real {@code redis-server}. */
class RedisCountingFilterContractIT extends StandaloneRedisContractTest {

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
        return ContractFilters.loadedHere(redis.backend.createCounting(ContractFilters.name("counting"), sizing,
                seed, 1));
    }
}
