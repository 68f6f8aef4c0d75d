package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisClusterProcess;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backend contract on a real three-node Redis Cluster, each filter split into three shards so that its
 * keys live on different nodes and every check and add is routed by slot.
 */
@ExtendWith(RedisServerExtension.class)
class RedisClusterBloomFilterContractIT extends BloomFilterContractTest {

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(RedisClusterProcess cluster) {
        redis = TestRedisBackend.on(cluster, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    /**
     * A quarter of the keys: the local suite proves the layout at full size, the single-server one in Redis at half;
     * this one proves the shards over a cluster.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        int shards = (int) Math.min(3, sizing.blockCount());
        return ContractFilters.loadedHere(redis.backend.create(ContractFilters.name("cluster"), sizing, seed, shards));
    }
}
