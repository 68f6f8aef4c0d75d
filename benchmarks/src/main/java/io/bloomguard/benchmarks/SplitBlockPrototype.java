package io.bloomguard.benchmarks;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * EXPERIMENT, not a product layout: a split-block filter (one bit in each of a block's 8 words, k = 8, the
 * word's bit from 6 bits of h2) in the same memory as bloom-guard's blocked filter for the same n and ε, to see
 * what a layout with constant word offsets would gain per check. Same hashing, same 64-byte alignment, acquire
 * loads as the product does.
 */
final class SplitBlockPrototype extends FilterUnderTest {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int LEAD = 6;

    private final long[] words;
    private final int blockCount;

    SplitBlockPrototype(long n, double fpp) {
        FilterSizing sizing = FilterSizing.of(n, fpp);
        this.blockCount = (int) sizing.blockCount();
        this.words = new long[LEAD + blockCount * 8 + 2];
    }

    @Override
    boolean put(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, SEED);
        int base = LEAD + BlockedBloomLayout.blockIndex(hash.h1(), blockCount) * 8;
        long h2 = hash.h2();
        boolean changed = false;
        for (int i = 0; i < 8; i++) {
            long mask = 1L << (h2 >>> (6 * i));
            changed |= (words[base + i] & mask) == 0;
            words[base + i] |= mask;
        }
        return changed;
    }

    @Override
    boolean mightContain(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, SEED);
        int base = LEAD + BlockedBloomLayout.blockIndex(hash.h1(), blockCount) * 8;
        long h2 = hash.h2();
        long[] w = words;
        long present = ((long) WORDS.getAcquire(w, base) >>> h2)
                & ((long) WORDS.getAcquire(w, base + 1) >>> (h2 >>> 6))
                & ((long) WORDS.getAcquire(w, base + 2) >>> (h2 >>> 12))
                & ((long) WORDS.getAcquire(w, base + 3) >>> (h2 >>> 18))
                & ((long) WORDS.getAcquire(w, base + 4) >>> (h2 >>> 24))
                & ((long) WORDS.getAcquire(w, base + 5) >>> (h2 >>> 30))
                & ((long) WORDS.getAcquire(w, base + 6) >>> (h2 >>> 36))
                & ((long) WORDS.getAcquire(w, base + 7) >>> (h2 >>> 42));
        return (present & 1) != 0;
    }

    @Override
    long byteSize() {
        return (long) blockCount * 64;
    }
}
