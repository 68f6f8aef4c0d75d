package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

/**
 * The backend contract for a filter that grows by layers ({@code growth: scale}) on one real {@code redis-server}:
 * each is given the sizing a local scalable filter takes as layer 0, as {@code ScalableLocalFilterTest} does.
 */
class RedisScalableFilterContractIT extends StandaloneRedisContractTest {

    /** A quarter of the keys: each check is a script, and the local suite proves the layers at full size. */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(redis.backend.createScalable(ContractFilters.name("scalable"), sizing,
                seed, AddFailurePolicy.BUFFER));
    }
}
