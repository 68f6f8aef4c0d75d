package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

/** The backend contract on one real {@code redis-server}. */
class RedisBloomFilterContractIT extends StandaloneRedisContractTest {

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name("plain"), sizing, seed, 1));
    }
}
