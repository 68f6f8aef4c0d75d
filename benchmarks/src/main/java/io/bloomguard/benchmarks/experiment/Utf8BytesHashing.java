package io.bloomguard.benchmarks.experiment;

import io.bloomguard.core.Hash128;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Experiment, not library code: Murmur3 x64 128 of a {@code String}'s UTF-8 bytes, bit for bit what
 * {@code Murmur3.hashUtf8} gives, but with the encoding done by {@link String#getBytes} (for an ASCII string in
 * JDK 17 that is a vectorized scan and an array copy) and the 16-byte blocks read as two {@code long}s instead
 * of sixteen {@code charAt} calls. {@code getBytes(UTF_8)} writes an unpaired surrogate as {@code '?'}, as the
 * library documents. Costs one short-lived byte array per key.
 */
public final class Utf8BytesHashing {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private Utf8BytesHashing() {
    }

    public static Hash128 hashUtf8(String text, int seed) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int n = bytes.length;
        long h1 = seed;
        long h2 = seed;
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            h1 ^= mixK1((long) LONGS.get(bytes, i));
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2((long) LONGS.get(bytes, i + 8));
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int rest = n - i;
        if (rest > 0) {
            long k1;
            long k2 = 0;
            if (rest >= 8) {
                k1 = (long) LONGS.get(bytes, i);
                k2 = tail(bytes, i + 8, rest - 8);
            } else {
                k1 = tail(bytes, i, rest);
            }
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        h1 ^= n;
        h2 ^= n;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        return new Hash128(h1, h2);
    }

    private static long tail(byte[] bytes, int from, int count) {
        long packed = 0;
        for (int j = 0; j < count; j++) {
            packed |= (bytes[from + j] & 0xFFL) << (j << 3);
        }
        return packed;
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
