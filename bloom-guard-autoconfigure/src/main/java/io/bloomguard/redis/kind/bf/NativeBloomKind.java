package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.redis.kind.Adds;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ServerBuild;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * A filter of the server's own ({@code BF.*}), one key a generation ({@code redis.kind: native}): checked with
 * {@code BF.EXISTS}, added to with {@code BF.INSERT NOCREATE}, built inside Redis ({@link NativeBloomBuild}), sized
 * from the filter's expected size and error rate ({@code BF.RESERVE}), scaling past them as the server does. Keys are
 * their canonical text, so any client reads the filter with {@code BF.EXISTS}.
 *
 * <p>Its identity is the one bloom-guard's bitmap of that expected size and error rate would have, seed 0 (the server
 * hashes, not bloom-guard), suffix {@code .bf}: a filter configured with another size is another shape
 * ({@code MISMATCHED}), as for bitmaps. One shard: the filter is one key, on one node of a cluster. No near copy and no
 * snapshot: the bits are in the module's own layout.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class NativeBloomKind extends BlockKind {

    public static final NativeBloomKind INSTANCE = new NativeBloomKind();

    private NativeBloomKind() {
    }

    @Override
    public RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards) {
        return RedisFilterIdentity.of(sizing, 0, shards, this);
    }

    @Override
    public String suffix() {
        return ".bf";
    }

    @Override
    public String type() {
        return "bf";
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
        return new NativeBloomGeneration(identity, keys, build);
    }

    @Override
    public Adds adds(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next, RedisFilterKeys keys) {
        return new NativeBloomAdds(live, next, keys);
    }

    @Override
    public @Nullable ServerBuild serverBuild() {
        return NativeBloomBuild.INSTANCE;
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

    private static UnsupportedOperationException inRedis(String what) {
        return new UnsupportedOperationException("a native filter (BF.*) is built inside Redis and " + what);
    }
}
