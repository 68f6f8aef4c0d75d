package io.bloomguard.redis.layout;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.state.RedisFilterIdentity;

/**
 * A bit a position ({@code type: bloom}), blocks split over shards: a key is checked with one {@code GETRANGE} of its
 * 64-byte block, added by {@code RedisScripts.ADD}, and a build's bits are ORed into the generation being built.
 */
public final class PlainLayout extends UnlayeredLayout {

    public static final PlainLayout INSTANCE = new PlainLayout();

    private PlainLayout() {
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
        return RedisBitmapCodec.toRedisBytes(words, from, count);
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        RedisBitmapCodec.fromRedisBytes(bytes, words, from);
    }

    @Override
    CopiedBits newCopy(RedisFilterIdentity identity, FilterSizing sizing) {
        return new PlainCopiedBits(LocalBloomFilter.create(sizing, identity.seed()), identity);
    }

    @Override
    boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        return RedisBitmapCodec.blockHolds(block, hash, hashCount);
    }

    @Override
    LuaScript checkAll() {
        return RedisScripts.CHECK_ALL;
    }

    @Override
    public RedisLocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        LocalBloomFilter bits = LocalBloomFilter.create(sizing, seed);
        long keys = source.feed(bits::putAll);
        return new RedisLocalWords(bits.sizing(), bits::copyWords, keys, null);
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
