package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.BloomFilterContractTest;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.redis.server.RedisClusterProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend contract on a real three-node Redis Cluster, each filter split into three shards so that its
 * keys live on different nodes and every check and add is routed by slot.
 */
class RedisClusterBloomFilterContractIT extends BloomFilterContractTest {

    private static final AtomicInteger names = new AtomicInteger();

    private static RedisClusterProcess cluster;
    private static TestRedisBackend redis;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcess.start();
        redis = TestRedisBackend.on(cluster, TestRedisBackend.FAST);
    }

    @AfterAll
    static void stopCluster() {
        redis.close();
        cluster.close();
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        int shards = (int) Math.min(3, sizing.blockCount());
        RedisBloomFilter filter = redis.backend.create("cluster-contract-" + names.incrementAndGet(), sizing, seed, shards);
        SharedBloomFilter.StartOutcome outcome = filter.start(KeyFeed.EMPTY);
        if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
            throw new IllegalStateException("a fresh filter should be loaded here, was " + outcome);
        }
        return filter;
    }
}
