package io.bloomguard.core;

/**
 * Allocation-free Murmur3 x64 128, bit for bit what Guava's {@code Hashing.murmur3_128(seed)} produces for
 * the same bytes (including Guava's sign extension of the 32-bit seed).
 *
 * <p>Guava's {@code Hasher} allocates a buffer on every call, which dominates a Bloom filter check; this class
 * hashes a {@code long}, a UUID or a string's UTF-8 bytes straight from the value. {@code Murmur3Test} pins
 * it against Guava.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
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
        h1 = mixH1(h1, h2, first);
        h2 = mixH2(h2, h1, second);
        return finish(h1, h2, 16);
    }

    /**
     * Hash of the UTF-8 encoding of {@code text}, as Guava's {@code hashString(text, UTF_8)}: an unpaired
     * surrogate is encoded as {@code '?'}, as {@link String#getBytes(java.nio.charset.Charset)} does.
     */
    public static Hash128 hashUtf8(CharSequence text, int seed) {
        if (text instanceof String s) {
            Hash128 ascii = hashAscii(s, seed);
            if (ascii != null) {
                return ascii;
            }
        }
        return hashEncoded(text, seed);
    }

    /**
     * The hash of an all-ASCII string (whose UTF-8 bytes are its chars), or {@code null} if it has another
     * character. Most keys are ASCII, and this is most of what a String check costs:
     * <ul>
     * <li>counted loops over {@code String.charAt} let the JIT drop the per-char bounds and coder checks,
     * and 8 chars are packed into a word with no per-byte bookkeeping;</li>
     * <li>the ASCII test is an OR over all chars, checked once at the end, so no branch depends on a char;</li>
     * <li>the method stays under the JIT's inlining limit (325 bytecodes), so that inlined into a filter's
     * check the {@code Hash128} it returns is never allocated. A jump table for the tail (as in Murmur3's C
     * code), or a helper per 8 chars, measured 2–4 ns slower per check.</li>
     * <li>it is hot in {@code put} too, so the JIT often compiles it on its own first; it is then inlined
     * only while that compiled code stays under {@code InlineSmallCode} (about 2,500 bytes). Reading the
     * tail as the last 8 chars through helpers crossed that line. Check {@code -XX:+PrintInlining} after
     * growing this method.</li>
     * </ul>
     */
    private static Hash128 hashAscii(String text, int seed) {
        long h1 = seed;
        long h2 = seed;
        int length = text.length();
        int blocks = length >>> 4;
        long seen = 0; // OR of all chars: ASCII iff below 0x80. A long, so that a char is widened once for both uses
        for (int block = 0; block < blocks; block++) {
            int start = block << 4;
            long k1 = 0;
            long k2 = 0;
            for (int j = 0; j < 8; j++) {
                char c = text.charAt(start + j);
                seen |= c;
                k1 |= (long) c << (j << 3);
            }
            for (int j = 0; j < 8; j++) {
                char c = text.charAt(start + 8 + j);
                seen |= c;
                k2 |= (long) c << (j << 3);
            }
            h1 = mixH1(h1, h2, k1);
            h2 = mixH2(h2, h1, k2);
        }
        int tailStart = blocks << 4;
        if (tailStart < length) {
            long k1 = 0;
            long k2 = 0;
            for (int j = 0; j < length - tailStart; j++) {
                char c = text.charAt(tailStart + j);
                seen |= c;
                long shifted = (long) c << (j << 3); // the shift distance wraps at 64: chars 8–15 land in k2
                if (j < 8) {
                    k1 |= shifted;
                } else {
                    k2 |= shifted;
                }
            }
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        return seen < 0x80 ? finish(h1, h2, length) : null;
    }

    /** Encodes any text to UTF-8 on the fly, one character at a time, and hashes the bytes. */
    private static Hash128 hashEncoded(CharSequence text, int seed) {
        long h1 = seed;
        long h2 = seed;
        long k1 = 0;
        long k2 = 0;
        int fill = 0; // bytes in the current 16-byte block
        long length = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
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
                    h1 = mixH1(h1, h2, k1);
                    h2 = mixH2(h2, h1, k2);
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

    /** {@code h1} after mixing in the first half of a full 16-byte block. */
    private static long mixH1(long h1, long h2, long k1) {
        h1 ^= mixK1(k1);
        h1 = Long.rotateLeft(h1, 27);
        h1 += h2;
        return h1 * 5 + 0x52dce729;
    }

    /** {@code h2} after mixing in the second half of a full block, given the new {@code h1}. */
    private static long mixH2(long h2, long h1, long k2) {
        h2 ^= mixK2(k2);
        h2 = Long.rotateLeft(h2, 31);
        h2 += h1;
        return h2 * 5 + 0x38495ab5;
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
