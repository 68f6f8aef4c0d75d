package io.bloomguard.registry;

/**
 * How a redis filter is stored ({@code bloom-guard.filters.<name>.redis.kind}).
 *
 * @since 0.1.0
 */
public enum RedisFilterKind {

    /**
     * bloom-guard's own bitmap in Redis strings: any Redis 6.2+ or Cluster, no module; shards, near copies, counting
     * filters and snapshots.
     */
    BITMAP,

    /**
     * The server's own Bloom filter ({@code BF.*}: Redis 8, Redis Stack, Valkey's bloom module, or the RedisBloom
     * module), one key that any client reads with {@code BF.EXISTS}; built inside Redis, scaling past its expected
     * size as the server does. One shard, no near copy, no snapshot, no remove.
     */
    NATIVE
}
