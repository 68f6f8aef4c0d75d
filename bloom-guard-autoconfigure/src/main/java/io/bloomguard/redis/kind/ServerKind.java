package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * A kind whose filter is a data type of the server's ({@code BF.*}, {@code CF.*}): one key a generation, keys sent as
 * their canonical text, built inside Redis ({@link ServerBuild}), checked, added to and counted by its
 * {@link ServerScripts}. Its identity is the one bloom-guard's bitmap of that expected size and error rate would have,
 * seed 0 (the server hashes): a filter configured with another size is another shape ({@code MISMATCHED}), as for
 * bitmaps. One shard (one key, on one node of a cluster); no near copy and no snapshot (the bits are in the module's
 * own layout).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public abstract class ServerKind extends BlockKind {

    /** Its scripts. */
    public abstract ServerScripts scripts();

    /** The server's command that describes a filter of this kind ({@code BF.INFO}): its fields, as name and value. */
    public abstract String infoCommand();

    /** What Redis's {@code TYPE} answers for a filter of this kind ({@code MBbloom--}). */
    public abstract String redisType();

    /**
     * What of a filter another program created, as its {@link #infoCommand()} describes it, contradicts the size and
     * error rate declared for it: a filter with fewer keys' room or a higher rate than declared would reject less, and
     * fill past its rate, without saying so. A larger or tighter one contradicts nothing.
     *
     * @return the contradiction, in words that name both values; {@code null} when there is none
     */
    public abstract @Nullable String contradiction(java.util.Map<String, String> info, FilterSizing declared);

    /** A number among a filter's info fields ({@link #infoCommand()}); 0 for one missing or empty. */
    public static long infoNumber(@Nullable String field) {
        return (field == null || field.isEmpty()) ? 0 : Long.parseLong(field);
    }

    /**
     * KEYS: a filter another program created. ARGV: a key's text. Takes the key's last copy out, as the kind's remove
     * does (1 taken out or kept, 0 certainly absent, -1 the filter is gone); {@code null} for a kind that cannot remove.
     */
    public abstract @Nullable LuaScript foreignRemove();

    /**
     * A command of the server's for this kind that reads one key ({@code BF.CARD}): a server that does not know it
     * has no filters of this kind.
     */
    public abstract String readCommand();

    /** The chance that an absent key passes a filter of {@code sizing} that holds {@code keys} keys. */
    protected abstract double falsePositiveProbability(long keys, FilterSizing sizing);

    @Override
    public abstract ServerBuild serverBuild();

    @Override
    public RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards) {
        return RedisFilterIdentity.of(sizing, 0, shards, this);
    }

    @Override
    public long maxBlocksPerShard() {
        return Long.MAX_VALUE; // one key of the server's, whatever its size
    }

    @Override
    public void checkShards(int shards) {
        if (shards != 1) {
            throw new IllegalArgumentException("a native filter (redis.kind: native) is one key of the server's, on one"
                    + " node: it cannot be split into " + shards + " shards; set redis.shards to 1");
        }
    }

    @Override
    public Generation open(RedisFilterIdentity identity, @Nullable FilterSizing sizing, int layerCount,
            RedisFilterKeys keys, String build) {
        return new ServerGeneration(this, identity, keys, build);
    }

    @Override
    public Adds adds(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next, RedisFilterKeys keys) {
        return new ServerAdds(this, live, next, keys);
    }

    /** Whether a key can be taken back: a remove script. */
    public boolean removes() {
        return scripts().remove() != null;
    }

    @Override
    public @Nullable String dataKeyType() {
        return null;
    }

    @Override
    public boolean nearCopies() {
        return false;
    }

    @Override
    public boolean snapshots() {
        return false;
    }

    @Override
    public boolean mergesUploadBeforeSwap() {
        return false;
    }

    @Override
    public List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers) {
        return List.of();
    }

    @Override
    public int layerCount(@Nullable Generation live) {
        return 1;
    }

    @Override
    public long maxLocalBlocks() {
        return 0; // nothing of it is held in the JVM
    }

    @Override
    public LocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        throw inRedis("is not read into the JVM");
    }

    @Override
    public byte[] toRedisBytes(long[] words, int from, int count) {
        throw inRedis("has no bytes of bloom-guard's layout");
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        throw inRedis("has no bytes of bloom-guard's layout");
    }

    @Override
    public long positionsInUse(RedisCaller via, String bitmap, long bytes) {
        throw inRedis("counts keys, not positions");
    }

    private UnsupportedOperationException inRedis(String what) {
        return new UnsupportedOperationException("a native filter (" + type() + ") is built inside Redis and " + what);
    }
}
