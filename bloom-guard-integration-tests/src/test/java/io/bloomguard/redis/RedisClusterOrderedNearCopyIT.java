package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.testsupport.redis.RedisClusterProcess;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code redis.near-copy: ordered} on a real three-node Redis Cluster, the filter in three shards, one a node: adds are
 * published on each shard's channel ({@code SPUBLISH}), subscribed on that node, and a barrier is sent to the nodes of
 * the keys checked. Across two instances a key one added is never answered "absent" by the other while every node's
 * subscriber connections are killed, a node hangs, and the filter is rebuilt and grows.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisClusterOrderedNearCopyIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final int KEYS = Integer.getInteger("bloomguard.ordered.keys", 40_000);

    @Test
    void aKeyAnotherInstanceAddedIsNeverAnsweredAbsentOnAClusterWithShards(RedisClusterProcess cluster)
            throws Exception {
        cluster.flushAll();
        RedisServerProcess first = cluster.nodes().get(0);
        try (TestRedisBackend a = TestRedisBackend.on(cluster, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(cluster, TestRedisBackend.FAST);
                OrderedWalk walk = new OrderedWalk(ordered(a), ordered(b), KEYS)) {
            walk.run(step -> switch (step) {
                case 1 -> killSubscribers(cluster);
                case 2 -> walk.inBackground(() -> first.command("DEBUG", "SLEEP", "0.4"));
                case 4 -> walk.rebuild();
                case 8 -> walk.grow();
                default -> null;
            });
        }
    }

    private static Object killSubscribers(RedisClusterProcess cluster) {
        cluster.nodes().forEach(node -> node.command("CLIENT", "KILL", "TYPE", "pubsub"));
        return cluster;
    }

    private static RedisBloomFilter ordered(TestRedisBackend instance) {
        return instance.backend.create("cluster-walk", SIZING, 7, 3, AddFailurePolicy.BUFFER, NearCopyMode.ORDERED);
    }
}
