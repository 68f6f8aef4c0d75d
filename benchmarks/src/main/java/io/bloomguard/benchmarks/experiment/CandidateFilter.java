package io.bloomguard.benchmarks.experiment;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.Murmur3;
import io.bloomguard.local.LocalBloomFilter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Experiment, not library code: {@code LocalBloomFilter.mightContain} copied line for line over a snapshot of a
 * library filter's bits, with the key canonicalization of {@code KeyCanonicalizer} copied for {@code Long} and
 * {@code String} keys, and the text hash chosen by {@link TextHash}. {@link TextHash#LIBRARY} is the control: it
 * shows that the copy costs what the library costs.
 */
public final class CandidateFilter {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final int seed;
    private final int blockCount;
    private final int hashCount;
    private final TextHash textHash;
    private final boolean branchFreeProbe;

    /** How a candidate hashes text that is neither a number nor a UUID. */
    public enum TextHash {
        /** {@code Murmur3.hashUtf8}, as the library does today. */
        LIBRARY,
        /** {@link AsciiFastPathHashing}. */
        ASCII_FAST_PATH,
        /** {@link Utf8BytesHashing}. */
        UTF8_BYTES
    }

    /**
     * @param branchFreeProbe whether to test all {@code k} bits and combine the answers instead of returning at
     *                        the first clear bit (same answer; see {@link #mightContain})
     */
    public CandidateFilter(LocalBloomFilter filter, TextHash textHash, boolean branchFreeProbe) {
        this.words = filter.toWords();
        this.seed = filter.seed();
        this.blockCount = (int) filter.sizing().blockCount();
        this.hashCount = filter.hashCount();
        this.textHash = textHash;
        this.branchFreeProbe = branchFreeProbe;
    }

    /**
     * The library returns at the first clear bit. Whether a checked key is present is unpredictable, and so is
     * the probe at which an absent key stops, so that loop exit is a mispredicted branch on most checks; the
     * branch-free variant tests all {@code k} bits of the block (already in L1 after the first) and ORs the
     * misses together, so its loop always runs {@code k} times.
     */
    public boolean mightContain(Object key) {
        Hash128 hash = hash(key);
        long h1 = hash.h1();
        int firstWord = BlockedBloomLayout.blockIndex(h1, blockCount) * BlockedBloomLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = hash.h2();
        if (branchFreeProbe) {
            long missing = 0;
            for (int i = 0; i < hashCount; i++) {
                int bit = BlockedBloomLayout.bitInBlock(probe);
                long word = (long) WORDS.getAcquire(words, firstWord + (bit >>> 6));
                missing |= ~word & (1L << bit);
                probe = BlockedBloomLayout.nextProbe(probe, step);
            }
            return missing == 0;
        }
        for (int i = 0; i < hashCount; i++) {
            int bit = BlockedBloomLayout.bitInBlock(probe);
            int word = firstWord + (bit >>> 6);
            if (((long) WORDS.getAcquire(words, word) & (1L << (bit & 63))) == 0) {
                return false;
            }
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return true;
    }

    public Hash128 hash(Object key) {
        if (key instanceof Long l) {
            return Murmur3.hashLong(l, seed);
        }
        if (key instanceof String s) {
            int length = s.length();
            if (length > 0 && length <= 20 && isCanonicalLong(s)) {
                return Murmur3.hashLong(Long.parseLong(s, 0, length, 10), seed);
            }
            if (length == 36) {
                return KeyCanonicalizer.hash(s, seed); // UUID text or not: not what this experiment is about
            }
            return switch (textHash) {
                case LIBRARY -> Murmur3.hashUtf8(s, seed);
                case ASCII_FAST_PATH -> AsciiFastPathHashing.hashUtf8(s, seed);
                case UTF8_BYTES -> Utf8BytesHashing.hashUtf8(s, seed);
            };
        }
        return KeyCanonicalizer.hash(key, seed);
    }

    private static final String LONG_MAX_DIGITS = "9223372036854775807";
    private static final String LONG_MIN_DIGITS = "9223372036854775808";

    /** Copy of {@code KeyCanonicalizer.isCanonicalLong}. */
    static boolean isCanonicalLong(CharSequence text) {
        int length = text.length();
        boolean negative = text.charAt(0) == '-';
        int start = negative ? 1 : 0;
        int digits = length - start;
        if (digits == 0 || digits > 19) {
            return false;
        }
        if (text.charAt(start) == '0' && (digits > 1 || negative)) {
            return false;
        }
        for (int i = start; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        if (digits < 19) {
            return true;
        }
        String limit = negative ? LONG_MIN_DIGITS : LONG_MAX_DIGITS;
        for (int i = 0; i < 19; i++) {
            int diff = text.charAt(start + i) - limit.charAt(i);
            if (diff != 0) {
                return diff < 0;
            }
        }
        return true;
    }
}
