package io.bloomguard.local;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;

import java.security.SecureRandom;
import java.util.OptionalLong;

/**
 * The in-JVM counting filter: a {@link CountingBlockLayout counter} per position of the blocked layout, so that a key
 * can be removed again. Four times the memory of {@link LocalBloomFilter} for the same size and error rate; a check
 * reads the same one block, 256 bytes instead of 64.
 *
 * <p>Usage: {@code LocalCountingFilter sessions = LocalCountingFilter.create(FilterSizing.of(100_000, 0.01));
 * sessions.put(id); ... sessions.remove(id);}
 *
 * <p>Every put adds one to each of the key's counters, and every remove takes one away, so a key put {@code p} times
 * and removed fewer times is always found. Counters change by compare-and-set, never lose a change and never
 * wrap, and a saturated one is never decremented, so no sequence of puts and removes of keys that were put makes
 * another key absent, whichever threads run them. A remove first checks the key: when one of its counters is zero
 * the key is certainly not in, and the remove changes nothing. Check and decrements are one step for every key of a
 * block (a lock per stripe of blocks), so two removes of a key put once never both pass the check. A remove of a key
 * that was never put (or already removed) but whose counters are all above zero (a false positive) cannot be told
 * apart from a real one: it takes counts that belong to other keys, and may make one of them absent. That is the
 * caller's mistake, and the filter cannot refuse it.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LocalCountingFilter implements BloomFilter {

    /** Most blocks a local counting filter holds: 16 GiB of counters, a Java array's limit. */
    public static final long MAX_BLOCKS = LocalCounterArray.MAX_WORDS / CountingBlockLayout.BLOCK_WORDS;

    private static final SecureRandom SEEDS = new SecureRandom();

    /** Locks for removes, by block: enough that two threads seldom share one, few enough to cost nothing. */
    private static final int REMOVE_STRIPES = 256;

    private final FilterSizing sizing;
    private final int seed;
    private final int blockCount;
    private final int hashCount;
    private final LocalCounterArray counters;
    private final Object[] removeLocks;

    private LocalCountingFilter(FilterSizing sizing, int seed) {
        if (sizing.blockCount() > MAX_BLOCKS) {
            throw new IllegalArgumentException("a local counting filter holds at most " + MAX_BLOCKS
                    + " blocks (16 GiB of counters); " + sizing + " needs " + sizing.blockCount());
        }
        this.sizing = sizing;
        this.seed = seed;
        this.blockCount = (int) sizing.blockCount();
        this.hashCount = sizing.hashCount();
        this.counters = new LocalCounterArray(sizing.bitSize());
        this.removeLocks = new Object[(int) Math.min(REMOVE_STRIPES, blockCount)];
        for (int i = 0; i < removeLocks.length; i++) {
            removeLocks[i] = new Object();
        }
    }

    /** A filter with a random seed, so that nobody can precompute keys that pass it. */
    public static LocalCountingFilter create(FilterSizing sizing) {
        return new LocalCountingFilter(sizing, SEEDS.nextInt());
    }

    /** A filter with a chosen seed: for tests. */
    public static LocalCountingFilter create(FilterSizing sizing, int seed) {
        return new LocalCountingFilter(sizing, seed);
    }

    @Override
    public boolean mightContain(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        return holds(hash.h1(), hash.h2());
    }

    /** Whether all {@code k} counters of a key's hash are above zero; branch-free, as in {@link LocalBloomFilter}. */
    private boolean holds(long h1, long h2) {
        int firstWord = BlockedBloomLayout.blockIndex(h1, blockCount) * CountingBlockLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = h2;
        long[] storage = counters.storage();
        int k = hashCount & 31;
        long present = 1;
        for (int i = 0; i < k; i++) {
            long word = LocalCounterArray.word(storage, firstWord + CountingBlockLayout.wordInBlock(probe));
            long count = (word >>> CountingBlockLayout.shiftInWord(probe)) & CountingBlockLayout.MAX_COUNT;
            present &= (count + CountingBlockLayout.MAX_COUNT) >>> CountingBlockLayout.COUNTER_BITS; // 1 iff count > 0
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return present != 0;
    }

    /**
     * Adds one to each of the key's counters.
     *
     * @return {@code true} if one of them was zero, so the key was certainly new
     */
    @Override
    public boolean put(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        long h1 = hash.h1();
        int firstWord = BlockedBloomLayout.blockIndex(h1, blockCount) * CountingBlockLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = hash.h2();
        boolean changed = false;
        for (int i = 0; i < hashCount; i++) {
            changed |= counters.increment(firstWord + CountingBlockLayout.wordInBlock(probe),
                    CountingBlockLayout.shiftInWord(probe)) == 0;
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return changed;
    }

    /**
     * Takes one from each of the key's counters, unless one of them is zero (the key is certainly not in: nothing
     * changes). A saturated counter is left as it is.
     *
     * <p>The check and the decrements hold the lock of the key's block, which every remove of a key with counters in
     * that block takes: a remove sees the counts every earlier remove left, so a second remove of a key put once is
     * refused as a sequential one would be, instead of both passing the check and taking a count of another key's.
     * Puts need no lock: they only add. Between a remove's check and its decrements no other remove can lower the
     * key's counters and a put can only raise them, so each decrement finds its counter above zero, as the check did:
     * the outcome is that of the put running first.
     */
    @Override
    public boolean remove(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        long h1 = hash.h1();
        int block = BlockedBloomLayout.blockIndex(h1, blockCount);
        synchronized (removeLocks[block % removeLocks.length]) {
            if (!holds(h1, hash.h2())) {
                return false;
            }
            int firstWord = block * CountingBlockLayout.BLOCK_WORDS;
            long step = BlockedBloomLayout.step(h1);
            long probe = hash.h2();
            for (int i = 0; i < hashCount; i++) {
                counters.decrement(firstWord + CountingBlockLayout.wordInBlock(probe),
                        CountingBlockLayout.shiftInWord(probe));
                probe = BlockedBloomLayout.nextProbe(probe, step);
            }
            return true;
        }
    }

    /** Estimated from the counters above zero, as a plain filter's from its set bits. */
    @Override
    public long approximateElementCount() {
        return sizing.estimateKeyCount(counters.nonZeroCount());
    }

    @Override
    public double expectedFpp() {
        return sizing.falsePositiveProbabilityAt(counters.nonZeroCount());
    }

    /** Counters above zero: the bits a plain filter with the same keys would have set. */
    @Override
    public OptionalLong countedSetBits() {
        return OptionalLong.of(counters.nonZeroCount());
    }

    /** Number of counters ({@code m}), which play the part of a plain filter's bits. */
    @Override
    public long bitSize() {
        return counters.counterCount();
    }

    @Override
    public long byteSize() {
        return CountingBlockLayout.byteSize(sizing);
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

    /**
     * Copies {@code count} words of counters ({@link CountingBlockLayout}'s: 16 to a word), from word {@code fromWord}
     * on, into the start of {@code into}: how a store is handed counters built here, a chunk at a time.
     */
    public void copyCounterWords(int fromWord, long[] into, int count) {
        counters.copyWords(fromWord, into, count);
    }

    /**
     * Writes {@code count} words of counters from {@code words} over word {@code fromWord} on: as a store holds them
     * ({@code raise} false), or raising each counter to the given one where that is higher ({@code raise} true: a
     * copy that may be ahead of what was read keeps what it has).
     */
    public void writeCounterWords(int fromWord, long[] words, int count, boolean raise) {
        counters.writeWords(fromWord, words, count, raise);
    }

    /** Adds one to counter {@code counter} (numbered across the filter), unless it is saturated. */
    public void incrementCounter(long counter) {
        counters.increment(Math.toIntExact(counter / CountingBlockLayout.COUNTERS_PER_WORD),
                (int) (counter % CountingBlockLayout.COUNTERS_PER_WORD) * CountingBlockLayout.COUNTER_BITS);
    }

    /** Takes one from counter {@code counter}, unless it is zero or saturated: what a remove does to each of a key's. */
    public void decrementCounter(long counter) {
        counters.decrement(Math.toIntExact(counter / CountingBlockLayout.COUNTERS_PER_WORD),
                (int) (counter % CountingBlockLayout.COUNTERS_PER_WORD) * CountingBlockLayout.COUNTER_BITS);
    }

    /** The counters above zero as bits ({@link LocalBloomFilter#toWords()}'s form): the plain filter they amount to. */
    public long[] toWords() {
        return counters.nonZeroBits();
    }

    @Override
    public String toString() {
        return "LocalCountingFilter[m=" + bitSize() + ", k=" + hashCount + ", n=" + sizing.expectedSize() + ", ε="
                + sizing.errorRate() + "]";
    }
}
