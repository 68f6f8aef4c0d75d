package io.bloomguard.redis.copy;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.layout.RedisBitmapCodec;
import io.bloomguard.redis.layout.RedisCounterCodec;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterView;

import java.util.ArrayList;
import java.util.List;

/**
 * What a near copy holds of a build, part by part as Redis keeps it: a plain filter's bits and a counting filter's
 * counters a shard a part ({@link LocalBloomFilter}, {@link LocalCountingFilter}), the layers of one that grows by
 * layers a layer a part; with the ways Redis's bytes and published changes go into them. Positions are those of a
 * part: Redis bit (or field) {@code o} of the part's key.
 *
 * <p>Why the counters never fall below Redis's, which is what makes a copy's "absent" safe: a whole read writes what
 * Redis held (adds that arrive meanwhile are applied again after it, removes are left out), a block a check read
 * only raises counters, an add raises them as Redis does (saturating at 15), and a remove lowers them only when it
 * arrives in order, as Redis lowered them. A counter above Redis's is a false positive, no more.
 */
sealed interface RedisCopiedBits permits RedisCopiedBits.Plain, RedisCopiedBits.Counting, RedisCopiedBits.Layered {

    /** An empty copy of {@code view}'s live build. */
    static RedisCopiedBits of(RedisFilterView view) {
        RedisFilterIdentity live = view.live;
        RedisLayers layers = view.layers;
        if (layers != null) {
            List<LocalBloomFilter> copies = new ArrayList<>(layers.count());
            for (int layer = 0; layer < layers.count(); layer++) {
                copies.add(LocalBloomFilter.create(layers.sizing(layer), live.seed()));
            }
            return new Layered(copies);
        }
        return live.counting() ? new Counting(LocalCountingFilter.create(view.liveSizing, live.seed()), live)
                : new Plain(LocalBloomFilter.create(view.liveSizing, live.seed()), live);
    }

    boolean mightContain(Object key);

    boolean[] mightContainAll(List<?> keys);

    /** Words of 64 bits in part {@code part}, as Redis keeps it. */
    long words(int part);

    /** Writes words of part {@code part} read whole from Redis ({@code bytes}), from word {@code fromWord} of it on. */
    void readWords(int part, int fromWord, byte[] bytes);

    /** Merges block {@code block} (numbered across the shards) as a check read it: bits ORed in, counters raised. */
    void learnBlock(long block, byte[] bytes);

    /** A key this instance is adding: its bits set, before Redis has them (a counting copy leaves it to Redis). */
    void learnKey(Object key);

    /** An add Redis processed: positions in part {@code part}, {@code positions[from]} on. */
    void added(int part, String[] positions, int from);

    /** A remove Redis processed, in order: each counter, unless zero or saturated, lowered. */
    void removed(int part, String[] positions, int from);

    /** Heap the copy takes. */
    long bytes();

    /** Sets Redis bits {@code positions} of a part whose first word is {@code firstWord} in {@code bits}. */
    private static void setBits(LocalBloomFilter bits, long firstWord, String[] positions, int from) {
        long[] word = new long[1];
        for (int i = from; i < positions.length; i++) {
            long offset = Long.parseLong(positions[i]);
            word[0] = 1L << (offset & 63); // Redis bit o is bit o % 64 of word o / 64 (RedisBitmapCodec)
            bits.mergeWords(Math.toIntExact(firstWord + (offset >>> 6)), word, 1);
        }
    }

    /** ORs Redis bytes into {@code bits} from word {@code firstWord} on: an add applied meanwhile stays. */
    private static void orBytes(LocalBloomFilter bits, long firstWord, byte[] bytes) {
        long[] words = new long[bytes.length / 8];
        RedisBitmapCodec.fromRedisBytes(bytes, words, 0);
        bits.mergeWords(Math.toIntExact(firstWord), words, words.length);
    }

    /** A plain filter's bits; part {@code s} is shard {@code s}. */
    record Plain(LocalBloomFilter bits, RedisFilterIdentity identity) implements RedisCopiedBits {

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
    }

    /** A counting filter's counters: Redis's field {@code u4 #p} of shard {@code s} (part {@code s}) is counter p. */
    record Counting(LocalCountingFilter counters, RedisFilterIdentity identity) implements RedisCopiedBits {

        private static final int BLOCK_WORDS = CountingBlockLayout.BLOCK_WORDS;

        @Override
        public boolean mightContain(Object key) {
            return counters.mightContain(key);
        }

        @Override
        public boolean[] mightContainAll(List<?> keys) {
            return counters.mightContainAll(keys);
        }

        @Override
        public long words(int part) {
            return identity.blocksIn(part) * BLOCK_WORDS;
        }

        @Override
        public void readWords(int part, int fromWord, byte[] bytes) {
            write(identity.firstBlockOf(part) * BLOCK_WORDS + fromWord, bytes, false);
        }

        @Override
        public void learnBlock(long block, byte[] bytes) {
            write(block * BLOCK_WORDS, bytes, true);
        }

        @Override
        public void learnKey(Object key) {
            // Counted twice (here, then as Redis publishes it), a key put and removed would stay in the copy.
        }

        @Override
        public void added(int part, String[] positions, int from) {
            long first = identity.firstBlockOf(part) * BlockedBloomLayout.BLOCK_BITS;
            for (int i = from; i < positions.length; i++) {
                counters.incrementCounter(first + Long.parseLong(positions[i]));
            }
        }

        @Override
        public void removed(int part, String[] positions, int from) {
            long first = identity.firstBlockOf(part) * BlockedBloomLayout.BLOCK_BITS;
            for (int i = from; i < positions.length; i++) {
                counters.decrementCounter(first + Long.parseLong(positions[i]));
            }
        }

        @Override
        public long bytes() {
            return counters.byteSize();
        }

        private void write(long firstWord, byte[] bytes, boolean raise) {
            long[] words = new long[bytes.length / 8];
            RedisCounterCodec.fromRedisBytes(bytes, words, 0);
            counters.writeCounterWords(Math.toIntExact(firstWord), words, words.length, raise);
        }
    }

    /**
     * The layers of a filter that grows by layers, part {@code i} layer {@code i}: a key is held when a layer holds it;
     * this instance's adds go to the newest, as Redis's do (unless an older one holds the key already).
     */
    record Layered(List<LocalBloomFilter> layers) implements RedisCopiedBits {

        @Override
        public boolean mightContain(Object key) {
            for (LocalBloomFilter layer : layers) {
                if (layer.mightContain(key)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean[] mightContainAll(List<?> keys) {
            boolean[] held = new boolean[keys.size()];
            for (int i = 0; i < held.length; i++) {
                held[i] = mightContain(keys.get(i));
            }
            return held;
        }

        @Override
        public long words(int part) {
            return layers.get(part).bitSize() / Long.SIZE;
        }

        @Override
        public void readWords(int part, int fromWord, byte[] bytes) {
            orBytes(layers.get(part), fromWord, bytes);
        }

        @Override
        public void learnBlock(long block, byte[] bytes) {
            // a check of a layered filter reads every layer's block in a script: nothing is merged from it
        }

        @Override
        public void learnKey(Object key) {
            layers.get(layers.size() - 1).put(key);
        }

        @Override
        public void added(int part, String[] positions, int from) {
            setBits(layers.get(part), 0, positions, from);
        }

        @Override
        public void removed(int part, String[] positions, int from) {
            // a filter that grows by layers has no removes
        }

        @Override
        public long bytes() {
            return layers.stream().mapToLong(layer -> layer.bitSize() / Byte.SIZE).sum();
        }
    }
}
