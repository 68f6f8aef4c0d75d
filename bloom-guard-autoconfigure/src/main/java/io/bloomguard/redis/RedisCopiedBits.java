package io.bloomguard.redis;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;

import java.util.List;

/**
 * What a near copy holds of a build: a plain filter's bits ({@link LocalBloomFilter}), or a counting filter's counters
 * ({@link LocalCountingFilter}), with the ways Redis's bytes and published changes go into them.
 *
 * <p>Why the counters never fall below Redis's, which is what makes a copy's "absent" safe: a whole read writes what
 * Redis held (adds that arrive meanwhile are applied again after it, removes are left out), a block a check read
 * only raises counters, an add raises them as Redis does (saturating at 15), and a remove lowers them only when it
 * arrives in order, as Redis lowered them. A counter above Redis's is a false positive, no more.
 */
sealed interface RedisCopiedBits permits RedisCopiedBits.Plain, RedisCopiedBits.Counting {

    /** Bits or counters of an empty copy of a build of {@code sizing} and {@code seed}. */
    static RedisCopiedBits of(RedisFilterIdentity live, FilterSizing sizing) {
        return live.counting() ? new Counting(LocalCountingFilter.create(sizing, live.seed()))
                : new Plain(LocalBloomFilter.create(sizing, live.seed()));
    }

    /** Blocks a copy of {@code live}'s kind takes at most (16 GiB). */
    static long maxBlocks(RedisFilterIdentity live) {
        return live.counting() ? LocalCountingFilter.MAX_BLOCKS : LocalBloomFilter.MAX_BLOCKS;
    }

    boolean mightContain(Object key);

    boolean[] mightContainAll(List<?> keys);

    /** Words of 64 bits in a block: 8 of bits, 32 of counters. */
    int wordsPerBlock();

    /** Writes words read whole from Redis ({@code bytes}, a whole number of words) from word {@code fromWord} on. */
    void readWords(int fromWord, byte[] bytes);

    /** Merges block {@code block} as a check read it: bits are ORed in, counters raised. */
    void learnBlock(long block, byte[] bytes);

    /** A key this instance is adding: its bits set, before Redis has them (a counting copy leaves it to Redis). */
    void learnKey(Object key);

    /** An add Redis processed: positions of shard {@code shard} ({@code firstBlock} its first), {@code from} on. */
    void added(long firstBlock, String[] positions, int from);

    /** A remove Redis processed, in order: each counter, unless zero or saturated, lowered. */
    void removed(long firstBlock, String[] positions, int from);

    /** Heap the copy takes. */
    long bytes();

    /** A plain filter's bits: bit {@code o} of a shard is bit {@code o % 64} of its word {@code o / 64}. */
    record Plain(LocalBloomFilter bits) implements RedisCopiedBits {

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
        public int wordsPerBlock() {
            return BLOCK_WORDS;
        }

        @Override
        public void readWords(int fromWord, byte[] bytes) {
            long[] words = new long[bytes.length / 8];
            RedisBitmapCodec.fromRedisBytes(bytes, words, 0);
            bits.mergeWords(fromWord, words, words.length); // ORed: an add applied meanwhile stays
        }

        @Override
        public void learnBlock(long block, byte[] bytes) {
            readWords(Math.toIntExact(block * BLOCK_WORDS), bytes);
        }

        @Override
        public void learnKey(Object key) {
            bits.put(key);
        }

        @Override
        public void added(long firstBlock, String[] positions, int from) {
            long firstWord = firstBlock * BLOCK_WORDS;
            long[] word = new long[1];
            for (int i = from; i < positions.length; i++) {
                long offset = Long.parseLong(positions[i]);
                word[0] = 1L << (offset & 63); // see RedisBitmapCodec
                bits.mergeWords(Math.toIntExact(firstWord + (offset >>> 6)), word, 1);
            }
        }

        @Override
        public void removed(long firstBlock, String[] positions, int from) {
            // a plain filter has no removes
        }

        @Override
        public long bytes() {
            return bits.bitSize() / Byte.SIZE;
        }
    }

    /** A counting filter's counters: Redis's field {@code u4 #p} of a shard is counter {@code p} of its blocks. */
    record Counting(LocalCountingFilter counters) implements RedisCopiedBits {

        private static final int BLOCK_COUNTERS = BlockedBloomLayout.BLOCK_BITS;

        @Override
        public boolean mightContain(Object key) {
            return counters.mightContain(key);
        }

        @Override
        public boolean[] mightContainAll(List<?> keys) {
            return counters.mightContainAll(keys);
        }

        @Override
        public int wordsPerBlock() {
            return io.bloomguard.core.CountingBlockLayout.BLOCK_WORDS;
        }

        @Override
        public void readWords(int fromWord, byte[] bytes) {
            long[] words = new long[bytes.length / 8];
            RedisCounterCodec.fromRedisBytes(bytes, words, 0);
            counters.writeCounterWords(fromWord, words, words.length, false);
        }

        @Override
        public void learnBlock(long block, byte[] bytes) {
            long[] words = new long[bytes.length / 8];
            RedisCounterCodec.fromRedisBytes(bytes, words, 0);
            counters.writeCounterWords(Math.toIntExact(block * wordsPerBlock()), words, words.length, true);
        }

        @Override
        public void learnKey(Object key) {
            // Counted twice (here, then as Redis publishes it), a key put and removed would stay in the copy.
        }

        @Override
        public void added(long firstBlock, String[] positions, int from) {
            for (int i = from; i < positions.length; i++) {
                counters.incrementCounter(firstBlock * BLOCK_COUNTERS + Long.parseLong(positions[i]));
            }
        }

        @Override
        public void removed(long firstBlock, String[] positions, int from) {
            for (int i = from; i < positions.length; i++) {
                counters.decrementCounter(firstBlock * BLOCK_COUNTERS + Long.parseLong(positions[i]));
            }
        }

        @Override
        public long bytes() {
            return counters.byteSize();
        }
    }
}
