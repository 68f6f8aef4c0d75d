package io.bloomguard.core;

/**
 * Allocation-free Murmur3 x64 128, bit for bit what Guava's {@code Hashing.murmur3_128(seed)} produces for
 * the same bytes (including Guava's sign extension of the 32-bit seed).
 *
 * <p>Guava's {@code Hasher} allocates a buffer on every call, which dominates a Bloom filter check; this class
 * hashes a {@code long}, a UUID or a string's UTF-8 bytes straight from the value. {@code Murmur3Test} pins
 * it against Guava.
 */
public final class Murmur3 {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private Murmur3() {
    }

    /** Hash of the 8 little-endian bytes of {@code value}, as Guava's {@code hashLong}. */
    public static Hash128 hashLong(long value, int seed) {
        long h1 = seed;
        long h2 = seed;
        h1 ^= mixK1(value);
        return finish(h1, h2, 8);
    }

    /** Hash of two longs written one after the other (16 bytes), as Guava's {@code putLong(a).putLong(b)}. */
    public static Hash128 hashTwoLongs(long first, long second, int seed) {
        long h1 = seed;
        long h2 = seed;
        h1 ^= mixK1(first);
        h1 = Long.rotateLeft(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        h2 ^= mixK2(second);
        h2 = Long.rotateLeft(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
        return finish(h1, h2, 16);
    }

    /**
     * Hash of the UTF-8 encoding of {@code text}, as Guava's {@code hashString(text, UTF_8)}: an unpaired
     * surrogate is encoded as {@code '?'}, as {@link String#getBytes(java.nio.charset.Charset)} does.
     */
    public static Hash128 hashUtf8(CharSequence text, int seed) {
        long h1 = seed;
        long h2 = seed;
        long k1 = 0;
        long k2 = 0;
        int fill = 0; // bytes in the current 16-byte block
        long length = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            // Fast path: a whole block of ASCII, packed without per-byte bookkeeping.
            if (fill == 0 && n - i >= 16) {
                long lo = 0;
                long hi = 0;
                int or = 0;
                for (int j = 0; j < 8; j++) {
                    char c = text.charAt(i + j);
                    or |= c;
                    lo |= (long) c << (j << 3);
                }
                for (int j = 0; j < 8; j++) {
                    char c = text.charAt(i + 8 + j);
                    or |= c;
                    hi |= (long) c << (j << 3);
                }
                if (or < 0x80) {
                    h1 ^= mixK1(lo);
                    h1 = Long.rotateLeft(h1, 27);
                    h1 += h2;
                    h1 = h1 * 5 + 0x52dce729;
                    h2 ^= mixK2(hi);
                    h2 = Long.rotateLeft(h2, 31);
                    h2 += h1;
                    h2 = h2 * 5 + 0x38495ab5;
                    i += 16;
                    length += 16;
                    continue;
                }
            }
            int c = text.charAt(i++);
            int bytes;
            int encoded; // up to 4 UTF-8 bytes, first byte in the lowest 8 bits
            if (c < 0x80) {
                encoded = c;
                bytes = 1;
            } else if (c < 0x800) {
                encoded = (0xC0 | (c >>> 6)) | ((0x80 | (c & 0x3F)) << 8);
                bytes = 2;
            } else if (Character.isSurrogate((char) c)) {
                if (Character.isHighSurrogate((char) c) && i < n && Character.isLowSurrogate(text.charAt(i))) {
                    int cp = Character.toCodePoint((char) c, text.charAt(i++));
                    encoded = (0xF0 | (cp >>> 18)) | ((0x80 | ((cp >>> 12) & 0x3F)) << 8)
                            | ((0x80 | ((cp >>> 6) & 0x3F)) << 16) | ((0x80 | (cp & 0x3F)) << 24);
                    bytes = 4;
                } else {
                    encoded = '?';
                    bytes = 1;
                }
            } else {
                encoded = (0xE0 | (c >>> 12)) | ((0x80 | ((c >>> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16);
                bytes = 3;
            }
            for (int b = 0; b < bytes; b++) {
                long byteValue = (encoded >>> (b << 3)) & 0xFF;
                if (fill < 8) {
                    k1 |= byteValue << (fill << 3);
                } else {
                    k2 |= byteValue << ((fill - 8) << 3);
                }
                if (++fill == 16) {
                    h1 ^= mixK1(k1);
                    h1 = Long.rotateLeft(h1, 27);
                    h1 += h2;
                    h1 = h1 * 5 + 0x52dce729;
                    h2 ^= mixK2(k2);
                    h2 = Long.rotateLeft(h2, 31);
                    h2 += h1;
                    h2 = h2 * 5 + 0x38495ab5;
                    k1 = 0;
                    k2 = 0;
                    fill = 0;
                }
            }
            length += bytes;
        }
        if (fill > 0) {
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        return finish(h1, h2, length);
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
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        k1 *= C2;
        return k1;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        k2 *= C1;
        return k2;
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
