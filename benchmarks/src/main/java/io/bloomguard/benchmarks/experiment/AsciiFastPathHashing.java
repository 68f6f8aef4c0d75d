package io.bloomguard.benchmarks.experiment;

import io.bloomguard.core.Hash128;
import io.bloomguard.core.Murmur3;

/**
 * Experiment, not library code: the change proposed for {@code Murmur3.hashUtf8}. Same output, bit for bit,
 * but the common case (a {@code String} of ASCII characters) is a method small enough for C2 to inline
 * ({@code -XX:FreqInlineSize} = 325 bytecodes), so the {@link Hash128} it returns is scalar-replaced instead
 * of allocated, and there is no call. Anything else falls back to the library's general method.
 */
public final class AsciiFastPathHashing {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private AsciiFastPathHashing() {
    }

    public static Hash128 hashUtf8(CharSequence text, int seed) {
        if (!(text instanceof String s)) {
            return Murmur3.hashUtf8(text, seed);
        }
        int n = s.length();
        long h1 = seed;
        long h2 = seed;
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            long lo = pack(s, i, 8);
            long hi = pack(s, i + 8, 8);
            if ((lo | hi) < 0) {
                return Murmur3.hashUtf8(s, seed);
            }
            h1 ^= mixK1(lo);
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(hi);
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int rest = n - i;
        if (rest > 0) {
            long k1 = pack(s, i, Math.min(rest, 8));
            long k2 = rest > 8 ? pack(s, i + 8, rest - 8) : 0;
            if ((k1 | k2) < 0) {
                return Murmur3.hashUtf8(s, seed);
            }
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        return finish(h1, h2, n);
    }

    /**
     * Up to 8 ASCII characters as little-endian bytes, or -1 if one of them is not ASCII (no packing of ASCII
     * characters has its top bit set, so -1 is never a valid answer).
     */
    private static long pack(String s, int from, int count) {
        long packed = 0;
        for (int j = 0; j < count; j++) {
            char c = s.charAt(from + j);
            if (c >= 0x80) {
                return -1;
            }
            packed |= (long) c << (j << 3);
        }
        return packed;
    }

    private static Hash128 finish(long h1, long h2, long length) {
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        return new Hash128(h1, h2);
    }

    private static long mixK1(long k1) {
        return Long.rotateLeft(k1 * C1, 31) * C2;
    }

    private static long mixK2(long k2) {
        return Long.rotateLeft(k2 * C2, 33) * C1;
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
