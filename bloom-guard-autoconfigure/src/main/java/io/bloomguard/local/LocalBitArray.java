package io.bloomguard.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed-size bit array that many threads may set and read at once without locks.
 *
 * <p>Setting uses an atomic OR on the 64-bit word, so two threads setting bits of the same word never lose
 * one; reading uses acquire loads, so a bit set by a put that happened before the read is seen.
 *
 * <p><b>Cache-line alignment.</b> Word {@code i} of the array is stored at {@code storage[i + LEADING_WORDS]}.
 * A {@code long[]}'s elements start 16 bytes into the object, and HotSpot's G1 collector (its default with
 * 2 or more CPUs and 1792 MB or more) places every array of half a heap region or more (any filter of a few
 * MiB) at the start of a region, which is aligned far beyond 64 bytes. Without the lead, every 8-word block
 * would straddle two cache lines there (words 0–5 in one, 6–7 in the next), and a check of a filter larger
 * than the CPU caches would fetch two lines from memory instead of one. Six leading words move block 0 to the
 * next 64-byte boundary. Where an array lands elsewhere (small filters, other collectors) the lead is
 * harmless: the chance that a block straddles is the same 7 in 8 as without it, and small filters stay in
 * cache anyway.
 */
final class LocalBitArray {

    /** Unused words before word 0: 16 header bytes + 6 × 8 = 64, so blocks start on cache lines under G1. */
    static final int LEADING_WORDS = 6;

    /** Unused words after the last one, so that the array is whole blocks plus one. */
    private static final int TRAILING_WORDS = 2;

    /** Most words an array may hold: the JVM's array limit, less the padding. */
    static final int MAX_WORDS = Integer.MAX_VALUE - 8 - LEADING_WORDS - TRAILING_WORDS;

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] storage;
    private final int wordCount;
    private final LongAdder setBits = new LongAdder();

    LocalBitArray(long bitCount) {
        if (bitCount % 64 != 0 || bitCount / 64 > MAX_WORDS) {
            throw new IllegalArgumentException(
                    "bit count must be a multiple of 64 and at most " + MAX_WORDS + " × 64, was " + bitCount);
        }
        this.wordCount = (int) (bitCount / 64);
        this.storage = new long[LEADING_WORDS + wordCount + TRAILING_WORDS];
    }

    /** An array holding a copy of {@code words}. */
    LocalBitArray(long[] words) {
        this(64L * words.length);
        System.arraycopy(words, 0, storage, LEADING_WORDS, words.length);
        long set = 0;
        for (long word : words) {
            set += Long.bitCount(word);
        }
        setBits.add(set);
    }

    /**
     * The storage itself, for a check that reads several words in a row: it holds the array in a local and
     * reads each word with {@link #word(long[], int)}. Through a field, every read after an acquire load would
     * load the field again (the JIT may not move loads across it), and a check reads up to {@code k} words.
     */
    long[] storage() {
        return storage;
    }

    /** Word {@code index} of the bit array whose {@link #storage()} is {@code storage}, with an acquire load. */
    static long word(long[] storage, int index) {
        return (long) WORDS.getAcquire(storage, LEADING_WORDS + index);
    }

    /** Sets a bit; {@code true} if it was clear before. */
    boolean set(int word, int bit) {
        long mask = 1L << bit;
        int slot = LEADING_WORDS + word;
        if (((long) WORDS.getAcquire(storage, slot) & mask) != 0) {
            return false; // the common case once a filter is full: no write, no cache-line contention
        }
        long before = (long) WORDS.getAndBitwiseOr(storage, slot, mask);
        if ((before & mask) == 0) {
            setBits.increment();
            return true;
        }
        return false;
    }

    /** Sets the bits of {@code mask} in word {@code word}; never clears one. */
    void or(int word, long mask) {
        int slot = LEADING_WORDS + word;
        if (((long) WORDS.getAcquire(storage, slot) & mask) == mask) {
            return; // all set already: no write, as in set()
        }
        long before = (long) WORDS.getAndBitwiseOr(storage, slot, mask);
        long added = mask & ~before;
        if (added != 0) {
            setBits.add(Long.bitCount(added));
        }
    }

    long setBitCount() {
        return setBits.sum();
    }

    long bitCount() {
        return (long) wordCount * 64;
    }

    /** Copies {@code count} words from word {@code from} on into {@code into}, from its start. */
    void copyWords(int from, long[] into, int count) {
        if (from < 0 || count < 0 || from > wordCount - count) {
            throw new IndexOutOfBoundsException("words " + from + " to " + ((long) from + count)
                    + " of a " + wordCount + "-word array");
        }
        for (int i = 0; i < count; i++) {
            into[i] = word(storage, from + i);
        }
    }

    /** A copy of the words, for export and for tests that compare two arrays bit for bit. */
    long[] snapshot() {
        long[] copy = new long[wordCount];
        copyWords(0, copy, wordCount);
        return copy;
    }
}
