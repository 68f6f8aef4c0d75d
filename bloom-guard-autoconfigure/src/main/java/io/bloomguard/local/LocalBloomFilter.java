package io.bloomguard.local;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;

import java.security.SecureRandom;
import java.util.List;

/**
 * The in-JVM backend: a {@link BlockedBloomLayout blocked} Bloom filter over a lock-free bit array.
 *
 * <p>Usage: {@code BloomFilter ids = LocalBloomFilter.create(FilterSizing.of(1_000_000, 0.01));}
 *
 * <p>Checks never lock and touch one 64-byte block; puts use one atomic OR per bit that was clear.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LocalBloomFilter implements BloomFilter {

    /** Most blocks a local filter holds: 16 GiB, a Java array's limit. */
    public static final long MAX_BLOCKS = LocalBitArray.MAX_WORDS / BlockedBloomLayout.BLOCK_WORDS;

    private static final SecureRandom SEEDS = new SecureRandom();

    /**
     * Keys a batch check hashes before it reads their blocks: enough fetches to keep a CPU's memory requests busy
     * (a core has a few dozen in flight at most), few enough that the hashes stay in the L1 cache.
     */
    private static final int BATCH_RUN = 64;

    private final FilterSizing sizing;
    private final int seed;
    private final int blockCount;
    private final int hashCount;
    private final LocalBitArray bits;

    private LocalBloomFilter(FilterSizing sizing, int seed) {
        this(sizing, seed, new LocalBitArray(checkedBitSize(sizing)));
    }

    private LocalBloomFilter(FilterSizing sizing, int seed, LocalBitArray bits) {
        this.sizing = sizing;
        this.seed = seed;
        this.blockCount = (int) sizing.blockCount();
        this.hashCount = sizing.hashCount();
        this.bits = bits;
    }

    private static long checkedBitSize(FilterSizing sizing) {
        if (sizing.blockCount() > MAX_BLOCKS) {
            throw new IllegalArgumentException("a local filter holds at most " + MAX_BLOCKS
                    + " blocks (16 GiB); " + sizing + " needs " + sizing.blockCount());
        }
        return sizing.bitSize();
    }

    /** A filter with a random seed, so that nobody can precompute keys that pass it. */
    public static LocalBloomFilter create(FilterSizing sizing) {
        return new LocalBloomFilter(sizing, SEEDS.nextInt());
    }

    /** A filter with a chosen seed: for tests, and for filters that must match one stored elsewhere. */
    public static LocalBloomFilter create(FilterSizing sizing, int seed) {
        return new LocalBloomFilter(sizing, seed);
    }

    /** A filter holding a copy of exported bits, e.g. from a Redis filter; answers exactly as the exporter did. */
    public static LocalBloomFilter fromSnapshot(FilterSnapshot snapshot) {
        checkedBitSize(snapshot.sizing());
        return new LocalBloomFilter(snapshot.sizing(), snapshot.seed(), new LocalBitArray(snapshot.words()));
    }

    /** A copy of this filter's bits with its size and seed, for import into another backend or a file. */
    public FilterSnapshot exportSnapshot() {
        return new FilterSnapshot(BlockedBloomLayout.VERSION, sizing, seed, bits.snapshot());
    }

    @Override
    public boolean mightContain(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        return holds(hash.h1(), hash.h2());
    }

    /**
     * Hashes a run of keys before reading any of their blocks. Once a filter outgrows the CPU caches, a check
     * waits on one block fetched from memory, and the CPU overlaps that wait with the next checks only as far
     * as its window of in-flight instructions reaches: a string's hash is long enough that a loop of
     * {@link #mightContain} overlaps almost nothing (see {@code CheckOverlapBenchmark}). Reads of hashes
     * already computed are a few instructions each, so the fetches of a whole run overlap.
     */
    @Override
    public boolean[] mightContainAll(List<?> keys) {
        int size = keys.size();
        boolean[] answers = new boolean[size];
        long[] h1s = new long[Math.min(size, BATCH_RUN)];
        long[] h2s = new long[h1s.length];
        for (int start = 0; start < size; start += BATCH_RUN) {
            int run = Math.min(BATCH_RUN, size - start);
            for (int i = 0; i < run; i++) {
                Hash128 hash = KeyCanonicalizer.hash(keys.get(start + i), seed);
                h1s[i] = hash.h1();
                h2s[i] = hash.h2();
            }
            for (int i = 0; i < run; i++) {
                answers[start + i] = holds(h1s[i], h2s[i]);
            }
        }
        return answers;
    }

    /** Whether all {@code k} bits of a key's hash are set. */
    boolean holds(long h1, long h2) {
        int firstWord = BlockedBloomLayout.blockIndex(h1, blockCount) * BlockedBloomLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = h2;
        // No early exit: the k reads hit one cache line, and a loop without unpredictable branches measured
        // faster than stopping at the first clear bit (half the checked keys are absent in a guard's traffic).
        // Every instruction counts here, not only the memory fetch: once a filter outgrows the CPU caches, how
        // many checks the CPU overlaps while each waits on memory depends on how few instructions a check is.
        // Hence the word and the bit shift straight out of the probe, and k masked to its range (at most 30,
        // see FilterSizing): the JIT then sees a short loop and drops the safepoint-polling outer loop it
        // wraps around loops of unknown length.
        long[] storage = bits.storage();
        int k = hashCount & 31;
        long present = 1;
        for (int i = 0; i < k; i++) {
            long word = LocalBitArray.word(storage, firstWord + BlockedBloomLayout.wordInBlock(probe));
            // A long shift uses the low 6 bits of its distance: here bits 55–60 of the probe, the bit in the word
            // (bitInBlock % 64). Rotating them down is one instruction where shifting them is two.
            present &= word >>> Long.rotateRight(probe, 55);
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return (present & 1) != 0;
    }

    @Override
    public boolean put(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        return put(hash.h1(), hash.h2());
    }

    /** Sets the {@code k} bits of a key's hash; {@code true} if one of them was clear. */
    boolean put(long h1, long h2) {
        int firstWord = BlockedBloomLayout.blockIndex(h1, blockCount) * BlockedBloomLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = h2;
        boolean changed = false;
        for (int i = 0; i < hashCount; i++) {
            int bit = BlockedBloomLayout.bitInBlock(probe);
            changed |= bits.set(firstWord + (bit >>> 6), bit & 63);
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return changed;
    }

    @Override
    public long approximateElementCount() {
        return sizing.estimateKeyCount(bits.setBitCount());
    }

    @Override
    public double expectedFpp() {
        return sizing.falsePositiveProbabilityAt(bits.setBitCount());
    }

    @Override
    public long bitSize() {
        return bits.bitCount();
    }

    @Override
    public int hashCount() {
        return hashCount;
    }

    @Override
    public FilterSizing sizing() {
        return sizing;
    }

    @Override
    public int seed() {
        return seed;
    }

    /** Number of set bits. */
    @Override
    public java.util.OptionalLong countedSetBits() {
        return java.util.OptionalLong.of(setBitCount());
    }

    public long setBitCount() {
        return bits.setBitCount();
    }

    /**
     * Copies part of the bit array (words as {@link #toWords()} numbers them) into {@code into}: for moving a
     * large filter elsewhere a chunk at a time, without a second copy of the whole array.
     */
    public void copyWords(int fromWord, long[] into, int count) {
        bits.copyWords(fromWord, into, count);
    }

    /**
     * Sets every bit that is set in {@code count} words of {@code words}, from its start, into this filter's words
     * from {@code fromWord} on (numbered as {@link #toWords()} numbers them): the union with bits read from
     * elsewhere, such as a chunk or a block of the same filter stored in Redis. Never clears a bit, so a key this
     * filter held before it still holds.
     */
    public void mergeWords(int fromWord, long[] words, int count) {
        long wordCount = bits.bitCount() / 64;
        if (fromWord < 0 || count < 0 || count > words.length || fromWord > wordCount - count) {
            throw new IndexOutOfBoundsException("words " + fromWord + " to " + ((long) fromWord + count)
                    + " of a " + wordCount + "-word filter");
        }
        for (int i = 0; i < count; i++) {
            if (words[i] != 0) {
                bits.or(fromWord + i, words[i]);
            }
        }
    }

    /** The bit array as 64-bit words (bit {@code b} is bit {@code b % 64} of word {@code b / 64}). */
    public long[] toWords() {
        return bits.snapshot();
    }

    @Override
    public String toString() {
        return "LocalBloomFilter[m=" + bitSize() + ", k=" + hashCount + ", n=" + sizing.expectedSize()
                + ", ε=" + sizing.errorRate() + "]";
    }
}
