package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

/** The backend contract on one real {@code redis-server}. */
class RedisBloomFilterContractIT extends StandaloneRedisContractTest {

    /**
     * Half the keys: a redis filter places its bits as a local one does (the same blocked layout, computed by the same
     * code; {@code RedisLayoutIT} compares the bytes), and the local backend runs the suite at full size in the JVM.
     * Each full-size call here is a round trip, 110 s in all; this half proves the Redis side.
     */
    @Override
    protected int scaleDown() {
        return 2;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name("plain"), sizing, seed, 1));
    }
}
