package io.bloomguard.redis.kind;

/**
 * Names of a filter's Redis keys. Every key of shard {@code i} carries the hash tag {@code {name}} (shard 0) or
 * {@code {name:i}}, so a shard's bitmap, its rebuild target and its metadata share one slot (a script may
 * touch them together on Redis Cluster) while different shards spread over the cluster's nodes.
 *
 * <pre>
 * bloom-guard:{users}:meta                        hash: live / next fingerprints, m, k, seed, generation, state, and
 *                                                 each instance's count of its adds (acks:&lt;instance&gt;.&lt;n&gt;)
 * bloom-guard:{users}:bits:v1.b19531.k7.s3f2a1b9c.n1   the live bitmap
 * bloom-guard:{users}:bits:...:layer1            layer 1 of a filter that grows by layers (growth: scale)
 * bloom-guard:{users}:next:...                    a generation being built
 * bloom-guard:{users}:lock                        held by the instance loading the filter
 * bloom-guard:{users}:fence                       hash: how often the lock was taken, each holder's fencing token
 * bloom-guard:{users}:removed:...                 a remove done (for ten minutes): one sent again is not done twice
 * bloom-guard:{users}:adds                        a channel: the adds, for near copies that read in order
 * bloom-guard:{users}:access-check:1              scratch keys of the access check, deleted at once
 * </pre>
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RedisFilterKeys {

    private final String prefix;
    private final String name;

    public RedisFilterKeys(String prefix, String name) {
        this.prefix = prefix;
        this.name = name;
    }

    public String meta(int shard) {
        return base(shard) + ":meta";
    }

    public String bits(int shard, RedisFilterIdentity identity) {
        return base(shard) + ":bits:" + identity.fingerprint();
    }

    /** Layer {@code index} (1 and up) of the live generation {@code live} of a filter that grows by layers. */
    public String layer(RedisFilterIdentity live, int index) {
        return bits(0, live) + ":layer" + index;
    }

    /** {@link #bits} with the seed left out ({@link RedisFilterIdentity#fingerprintWithoutSeed()}): a SCAN pattern. */
    public String bitsWithoutSeed(int shard, RedisFilterIdentity identity) {
        return base(shard) + ":bits:" + identity.fingerprintWithoutSeed();
    }

    public String next(int shard, RedisFilterIdentity identity) {
        return base(shard) + ":next:" + identity.fingerprint();
    }

    /** Where one loader uploads the bits it built, before they are merged into the next generation. */
    public String upload(int shard, RedisFilterIdentity identity, String owner) {
        return base(shard) + ":upload:" + identity.fingerprint() + ":" + owner;
    }

    /** Scratch keys of the access check ({@link io.bloomguard.redis.engine.RedisAccessCheck}): never left behind, or expiring within a minute. */
    public String accessCheck(int index) {
        return base(0) + ":access-check:" + index;
    }

    /**
     * The channel on which a shard's adds are published for near copies that read in order ({@link io.bloomguard.redis.engine.RedisAddFeed}):
     * in the shard's slot, like its keys.
     */
    public String adds(int shard) {
        return base(shard) + ":adds";
    }

    /** Marks one remove as done, for ten minutes: a remove sent again changes nothing the second time. */
    public String removal(int shard, String id) {
        return base(shard) + ":removed:" + id;
    }

    public String lock() {
        return base(0) + ":lock";
    }

    /** Counts the takings of the {@link #lock()}: each gets the next number, its fencing token. */
    public String fence() {
        return base(0) + ":fence";
    }

    /** Where the filter's change feed stands: its consumer's lease, position and freshness. */
    public String feed() {
        return base(0) + ":feed";
    }

    private String base(int shard) {
        return prefix + "{" + (shard == 0 ? name : name + ":" + shard) + "}";
    }
}
