package io.bloomguard.redis.layout;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.state.RedisFilterIdentity;

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
        orBytes(bits, identity.firstBlockOf(part) * BLOCK_WORDS + fromWord, bytes);
    }

    @Override
    public void learnBlock(long block, byte[] bytes) {
        orBytes(bits, block * BLOCK_WORDS, bytes);
    }

    @Override
    public void learnKey(Object key) {
        bits.put(key);
    }

    @Override
    public void added(int part, String[] positions, int from) {
        setBits(bits, identity.firstBlockOf(part) * BLOCK_WORDS, positions, from);
    }

    @Override
    public void removed(int part, String[] positions, int from) {
        // a plain filter has no removes
    }

    @Override
    public long bytes() {
        return bits.bitSize() / Byte.SIZE;
    }

    /** Sets Redis bits {@code positions} of a part whose first word is {@code firstWord} in {@code bits}. */
    static void setBits(LocalBloomFilter bits, long firstWord, String[] positions, int from) {
        long[] word = new long[1];
        for (int i = from; i < positions.length; i++) {
            long offset = Long.parseLong(positions[i]);
            word[0] = 1L << (offset & 63); // Redis bit o is bit o % 64 of word o / 64 (RedisBitmapCodec)
            bits.mergeWords(Math.toIntExact(firstWord + (offset >>> 6)), word, 1);
        }
    }

    /** ORs Redis bytes into {@code bits} from word {@code firstWord} on: an add applied meanwhile stays. */
    static void orBytes(LocalBloomFilter bits, long firstWord, byte[] bytes) {
        long[] words = new long[bytes.length / 8];
        RedisBitmapCodec.fromRedisBytes(bytes, words, 0);
        bits.mergeWords(Math.toIntExact(firstWord), words, words.length);
    }
}
