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
     * size as the server does; with {@code type: cuckoo}, the server's cuckoo filter ({@code CF.*}), from which keys are
     * removed. One shard, no near copy, no snapshot.
     */
    NATIVE,

    /**
     * {@link #NATIVE} when the server has the commands, else {@link #BITMAP}; decided once, when the application starts,
     * the same way on every instance: a filter already stored in Redis stays what it is stored as, and only one not
     * stored yet is decided by what the server has. It needs Redis at startup (an application that cannot reach it
     * does not start), and takes the limits of both: one shard, no near copy, no counting filter.
     */
    AUTO
}
