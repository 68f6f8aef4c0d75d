package io.bloomguard.local;

import io.bloomguard.core.CountingBlockLayout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed number of {@value CountingBlockLayout#COUNTER_BITS}-bit saturating counters, 16 to a 64-bit word, that many
 * threads may change and read at once without locks.
 *
 * <p>Each change is a compare-and-set of the whole word, retried when another thread changed the word meanwhile, so
 * no increment or decrement is ever lost, and a counter never wraps: one at {@value CountingBlockLayout#MAX_COUNT}
 * stays there (it no longer knows how many keys it counts), and one at zero is not decremented. Reads are acquire
 * loads, as in {@link LocalBitArray}, whose alignment this array shares: a block's 32 words start on a cache line
 * under G1.
 */
final class LocalCounterArray {

    /** Most words an array may hold: the JVM's array limit, less the padding. */
    static final int MAX_WORDS = LocalBitArray.MAX_WORDS;

    private static final int TRAILING_WORDS = 2;

    private static final long COUNTER_MASK = CountingBlockLayout.MAX_COUNT;

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] storage;
    private final int wordCount;
    /** Counters above zero: the bits a plain filter would have set. */
    private final LongAdder nonZero = new LongAdder();

    LocalCounterArray(long counterCount) {
        long words = counterCount / CountingBlockLayout.COUNTERS_PER_WORD;
        if (counterCount % CountingBlockLayout.COUNTERS_PER_WORD != 0 || words > MAX_WORDS) {
            throw new IllegalArgumentException("counter count must be a multiple of "
                    + CountingBlockLayout.COUNTERS_PER_WORD + " and at most " + MAX_WORDS + " × "
                    + CountingBlockLayout.COUNTERS_PER_WORD + ", was " + counterCount);
        }
        this.wordCount = (int) words;
        this.storage = new long[LocalBitArray.LEADING_WORDS + wordCount + TRAILING_WORDS];
    }

    /** The storage, for a check that reads several words in a row (see {@link LocalBitArray#storage()}). */
    long[] storage() {
        return storage;
    }

    /** Word {@code index} of the array whose {@link #storage()} is {@code storage}, with an acquire load. */
    static long word(long[] storage, int index) {
        return (long) WORDS.getAcquire(storage, LocalBitArray.LEADING_WORDS + index);
    }

    /**
     * Adds one to the counter at {@code shift} in word {@code word}, unless it is saturated.
     *
     * @return the count before
     */
    int increment(int word, int shift) {
        int slot = LocalBitArray.LEADING_WORDS + word;
        while (true) {
            long current = (long) WORDS.getAcquire(storage, slot);
            int count = (int) ((current >>> shift) & COUNTER_MASK);
            if (count == CountingBlockLayout.MAX_COUNT) {
                return count;
            }
            if (WORDS.compareAndSet(storage, slot, current, current + (1L << shift))) {
                if (count == 0) {
                    nonZero.increment();
                }
                return count;
            }
        }
    }

    /**
     * Takes one from the counter at {@code shift} in word {@code word}, unless it is zero or saturated.
     *
     * @return the count before
     */
    int decrement(int word, int shift) {
        int slot = LocalBitArray.LEADING_WORDS + word;
        while (true) {
            long current = (long) WORDS.getAcquire(storage, slot);
            int count = (int) ((current >>> shift) & COUNTER_MASK);
            if (count == 0 || count == CountingBlockLayout.MAX_COUNT) {
                return count;
            }
            if (WORDS.compareAndSet(storage, slot, current, current - (1L << shift))) {
                if (count == 1) {
                    nonZero.decrement();
                }
                return count;
            }
        }
    }

    /**
     * Writes {@code count} words from {@code words} over words {@code from} on ({@code raise}: each counter only where
     * the given one is higher), keeping the count of counters above zero.
     */
    void writeWords(int from, long[] words, int count, boolean raise) {
        if (from < 0 || count < 0 || from > wordCount - count) {
            throw new IndexOutOfBoundsException("words " + from + " to " + ((long) from + count)
                    + " of a " + wordCount + "-word array");
        }
        for (int i = 0; i < count; i++) {
            int slot = LocalBitArray.LEADING_WORDS + from + i;
            while (true) {
                long current = (long) WORDS.getAcquire(storage, slot);
                long next = raise ? counterMax(current, words[i]) : words[i];
                if (next == current) {
                    break;
                }
                if (WORDS.compareAndSet(storage, slot, current, next)) {
                    nonZero.add(nonZeroIn(next) - nonZeroIn(current));
                    break;
                }
            }
        }
    }

    private static long counterMax(long a, long b) {
        long max = 0;
        for (int shift = 0; shift < Long.SIZE; shift += CountingBlockLayout.COUNTER_BITS) {
            max |= Math.max((a >>> shift) & COUNTER_MASK, (b >>> shift) & COUNTER_MASK) << shift;
        }
        return max;
    }

    private static int nonZeroIn(long word) {
        int count = 0;
        for (int shift = 0; shift < Long.SIZE; shift += CountingBlockLayout.COUNTER_BITS) {
            count += ((word >>> shift) & COUNTER_MASK) != 0 ? 1 : 0;
        }
        return count;
    }

    /** Copies {@code count} words, from word {@code from} on, into the start of {@code into}. */
    void copyWords(int from, long[] into, int count) {
        if (from < 0 || count < 0 || from > wordCount - count) {
            throw new IndexOutOfBoundsException("words " + from + " to " + ((long) from + count)
                    + " of a " + wordCount + "-word array");
        }
        for (int i = 0; i < count; i++) {
            into[i] = word(storage, from + i);
        }
    }

    /** The counter at {@code shift} in word {@code word}. */
    int count(int word, int shift) {
        return (int) ((word(storage, word) >>> shift) & COUNTER_MASK);
    }

    long nonZeroCount() {
        return nonZero.sum();
    }

    long counterCount() {
        return (long) wordCount * CountingBlockLayout.COUNTERS_PER_WORD;
    }

    /** Bit {@code p} set where counter {@code p} is above zero: what a plain filter with the same keys holds. */
    long[] nonZeroBits() {
        long[] bits = new long[(int) (counterCount() / Long.SIZE)];
        for (int w = 0; w < wordCount; w++) {
            long counters = word(storage, w);
            for (int c = 0; c < CountingBlockLayout.COUNTERS_PER_WORD; c++) {
                if (((counters >>> (c * CountingBlockLayout.COUNTER_BITS)) & COUNTER_MASK) != 0) {
                    long position = (long) w * CountingBlockLayout.COUNTERS_PER_WORD + c;
                    bits[(int) (position / Long.SIZE)] |= 1L << (position % Long.SIZE);
                }
            }
        }
        return bits;
    }
}
