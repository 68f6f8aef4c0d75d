package io.bloomguard.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed-size bit array that many threads may set and read at once without locks.
 *
 * <p>Setting uses an atomic OR on the 64-bit word, so two threads setting bits of the same word never lose
 * one; reading uses acquire loads, so a bit set by a put that happened before the read is seen.
 */
final class LocalBitArray {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final LongAdder setBits = new LongAdder();

    LocalBitArray(long bitCount) {
        if (bitCount % 64 != 0 || bitCount / 64 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("bit count must be a multiple of 64 and at most 2^37, was " + bitCount);
        }
        this.words = new long[(int) (bitCount / 64)];
    }

    /** An array holding a copy of {@code words}. */
    LocalBitArray(long[] words) {
        this.words = words.clone();
        long set = 0;
        for (long word : this.words) {
            set += Long.bitCount(word);
        }
        setBits.add(set);
    }

    /**
     * The words themselves, for a check that reads several in a row: it holds the array in a local and reads
     * each word with {@link #word(long[], int)}. Through a field, every read after an acquire load would load
     * the field again (the JIT may not move loads across it), and a check reads up to {@code k} words.
     */
    long[] words() {
        return words;
    }

    /** The 64-bit word at {@code index} of {@code words}, with an acquire load. */
    static long word(long[] words, int index) {
        return (long) WORDS.getAcquire(words, index);
    }

    /** Sets a bit; {@code true} if it was clear before. */
    boolean set(int word, int bit) {
        long mask = 1L << bit;
        if (((long) WORDS.getAcquire(words, word) & mask) != 0) {
            return false; // the common case once a filter is full: no write, no cache-line contention
        }
        long before = (long) WORDS.getAndBitwiseOr(words, word, mask);
        if ((before & mask) == 0) {
            setBits.increment();
            return true;
        }
        return false;
    }

    long setBitCount() {
        return setBits.sum();
    }

    long bitCount() {
        return (long) words.length * 64;
    }

    /** Copies {@code count} words from word {@code from} on into {@code into}, from its start. */
    void copyWords(int from, long[] into, int count) {
        for (int i = 0; i < count; i++) {
            into[i] = (long) WORDS.getAcquire(words, from + i);
        }
    }

    /** A copy of the words, for export and for tests that compare two arrays bit for bit. */
    long[] snapshot() {
        long[] copy = new long[words.length];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = (long) WORDS.getAcquire(words, i);
        }
        return copy;
    }
}
