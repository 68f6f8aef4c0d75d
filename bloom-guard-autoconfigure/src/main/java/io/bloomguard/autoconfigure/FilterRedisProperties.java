package io.bloomguard.autoconfigure;

import io.bloomguard.core.NearCopyMode;
import io.bloomguard.registry.RedisFilterKind;
import org.jspecify.annotations.Nullable;

/**
 * {@code bloom-guard.filters.<name>.redis.*}: Redis settings of one filter.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class FilterRedisProperties {

    /**
     * Number of Redis keys the filter's bits are split over, each with its own hash tag so that a Redis Cluster
     * spreads them over its nodes. Filters above one Redis string (2^32 bits) get more automatically.
     */
    private int shards = 1;

    public int getShards() {
        return shards;
    }

    public void setShards(int shards) {
        this.shards = shards;
    }

    /**
     * Whether each instance keeps a copy of the filter's bits in its heap (the filter's size once more): {@code on}
     * answers the keys the copy holds without a round trip, and checks the others in Redis; {@code ordered} also
     * answers the keys it lacks, after a barrier that shows it holds every add Redis processed before the check;
     * {@code leased}, during a flood of absent keys, answers them with no command under a lease, and has every put wait
     * {@code bloom-guard.redis.near-copy-lease} before its commit. {@code true} and {@code false} mean {@code on} and {@code off}.
     */
    private NearCopyMode nearCopy = NearCopyMode.OFF;

    public NearCopyMode getNearCopy() {
        return nearCopy;
    }

    public void setNearCopy(NearCopyMode nearCopy) {
        this.nearCopy = nearCopy;
    }

    /**
     * How the filter is stored: {@code bitmap} (bloom-guard's own bits in Redis strings, any Redis 6.2+),
     * {@code native} (the server's own Bloom filter, BF.*, or cuckoo filter, CF.*: Redis 8, Redis Stack, Valkey's
     * bloom module or the RedisBloom module; any client reads it with BF.EXISTS), or {@code auto} (native when the
     * server has the commands, else bitmap; a filter already stored stays what it is stored as).
     */
    private RedisFilterKind kind = RedisFilterKind.BITMAP;

    public RedisFilterKind getKind() {
        return kind;
    }

    public void setKind(RedisFilterKind kind) {
        this.kind = kind;
    }

    /**
     * The key of a filter of the server's (BF.* or CF.*, with kind native) that another program created and fills:
     * bloom-guard guards it, adds its own writes' keys to it, and never creates, rebuilds or deletes it. The owner's
     * name, without bloom-guard's key prefix.
     */
    private @Nullable String key;

    public @Nullable String getKey() {
        return key;
    }

    public void setKey(@Nullable String key) {
        this.key = key;
    }
}
