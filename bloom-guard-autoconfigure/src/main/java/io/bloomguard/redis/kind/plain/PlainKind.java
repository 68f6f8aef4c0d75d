package io.bloomguard.redis.kind.plain;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.kind.UnlayeredKind;
import io.bloomguard.redis.port.LuaScript;

/**
 * A bit a position ({@code type: bloom}), blocks split over shards: a key is checked with one {@code GETRANGE} of its
 * 64-byte block, added by {@code RedisScripts.ADD}, and a build's bits are ORed into the generation being built.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class PlainKind extends UnlayeredKind {

    public static final PlainKind INSTANCE = new PlainKind();

    private PlainKind() {
    }

    @Override
    public RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards) {
        return RedisFilterIdentity.of(sizing, seed, shards, this);
    }

    @Override
    public String suffix() {
        return "";
    }

    @Override
    public String type() {
        return "bloom";
    }

    @Override
    public byte[] toRedisBytes(long[] words, int from, int count) {
        return BitmapCodec.toRedisBytes(words, from, count);
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        BitmapCodec.fromRedisBytes(bytes, words, from);
    }

    @Override
    protected CopiedBits newCopy(RedisFilterIdentity identity, FilterSizing sizing) {
        return new PlainCopiedBits(LocalBloomFilter.create(sizing, identity.seed()), identity);
    }

    @Override
    protected boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        return BitmapCodec.blockHolds(block, hash, hashCount);
    }

    @Override
    protected LuaScript checkAll() {
        return RedisScripts.CHECK_ALL;
    }

    @Override
    public LocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        LocalBloomFilter bits = LocalBloomFilter.create(sizing, seed);
        long keys = source.feed(bits::putAll);
        return new LocalWords(bits.sizing(), bits::copyWords, keys, null);
    }

    @Override
    public boolean mergesUploadBeforeSwap() {
        return false;
    }

    @Override
    public long positionsInUse(RedisCaller via, String bitmap, long bytes) {
        return via.call(port -> port.bitCount(bitmap));
    }

    @Override
    public long maxLocalBlocks() {
        return LocalBloomFilter.MAX_BLOCKS;
    }
}
