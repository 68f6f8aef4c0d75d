package io.bloomguard.redis.kind.plain;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.RedisFilterIdentity;

import java.util.List;

/** A plain filter's bits; part {@code s} is shard {@code s}. */
record PlainCopiedBits(LocalBloomFilter bits, RedisFilterIdentity identity) implements CopiedBits {

    private static final int BLOCK_WORDS = BlockedBloomLayout.BLOCK_WORDS;

    @Override
    public boolean mightContain(Object key) {
        return bits.mightContain(key);
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return bits.mightContainAll(keys);
    }

    @Override
    public long words(int part) {
        return identity.blocksIn(part) * BLOCK_WORDS;
    }

    @Override
    public void readWords(int part, int fromWord, byte[] bytes) {
        BitmapCodec.orBytes(bits, identity.firstBlockOf(part) * BLOCK_WORDS + fromWord, bytes);
    }

    @Override
    public void learnBlock(long block, byte[] bytes) {
        BitmapCodec.orBytes(bits, block * BLOCK_WORDS, bytes);
    }

    @Override
    public void learnKey(Object key) {
        bits.put(key);
    }

    @Override
    public void added(int part, String[] positions, int from) {
        BitmapCodec.setBits(bits, identity.firstBlockOf(part) * BLOCK_WORDS, positions, from);
    }

    @Override
    public void removed(int part, String[] positions, int from) {
        // a plain filter has no removes
    }

    @Override
    public long bytes() {
        return bits.bitSize() / Byte.SIZE;
    }
}
