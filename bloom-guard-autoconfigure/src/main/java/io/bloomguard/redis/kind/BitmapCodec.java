package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.local.LocalBloomFilter;

/**
 * Between the layout's bit numbers and Redis bitmaps. Bit {@code b} of a shard is Redis bit offset {@code b}
 * ({@code SETBIT key b 1}); Redis numbers bits from the most significant bit of byte 0, while the layout's
 * 64-bit words number them from the least significant, so a word becomes its bit-reversed value written
 * big-endian.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BitmapCodec {

    private BitmapCodec() {
    }

    /** Redis bytes of {@code count} words starting at {@code from}. */
    public static byte[] toRedisBytes(long[] words, int from, int count) {
        byte[] bytes = new byte[count * 8];
        for (int i = 0; i < count; i++) {
            long reversed = Long.reverse(words[from + i]);
            for (int b = 0; b < 8; b++) {
                bytes[i * 8 + b] = (byte) (reversed >>> (56 - 8 * b));
            }
        }
        return bytes;
    }

    /** Writes Redis bytes (a whole number of words) into {@code words} starting at word {@code from}. */
    public static void fromRedisBytes(byte[] bytes, long[] words, int from) {
        for (int i = 0; i < bytes.length / 8; i++) {
            long reversed = 0;
            for (int b = 0; b < 8; b++) {
                reversed = (reversed << 8) | (bytes[i * 8 + b] & 0xFF);
            }
            words[from + i] = Long.reverse(reversed);
        }
    }

    /** Whether bit {@code bit} of a block read with {@code GETRANGE} is set. */
    public static boolean isSet(byte[] block, int bit) {
        return (block[bit >>> 3] & (0x80 >>> (bit & 7))) != 0;
    }

    /** Whether every word in the range is zero: such chunks need not be uploaded. */
    public static boolean allZero(long[] words, int from, int count) {
        for (int i = from; i < from + count; i++) {
            if (words[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether a block of bits holds all {@code hashCount} of a key's positions. */
    public static boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        long step = BlockedBloomLayout.step(hash.h1());
        long probe = hash.h2();
        for (int i = 0; i < hashCount; i++) {
            if (!isSet(block, BlockedBloomLayout.bitInBlock(probe))) {
                return false;
            }
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return true;
    }

    /** Sets Redis bits {@code positions} of a part whose first word is {@code firstWord} in {@code bits}. */
    public static void setBits(LocalBloomFilter bits, long firstWord, String[] positions, int from) {
        long[] word = new long[1];
        for (int i = from; i < positions.length; i++) {
            long offset = Long.parseLong(positions[i]);
            word[0] = 1L << (offset & 63); // Redis bit o is bit o % 64 of word o / 64 (BitmapCodec)
            bits.mergeWords(Math.toIntExact(firstWord + (offset >>> 6)), word, 1);
        }
    }

    /** ORs Redis bytes into {@code bits} from word {@code firstWord} on: an add applied meanwhile stays. */
    public static void orBytes(LocalBloomFilter bits, long firstWord, byte[] bytes) {
        long[] words = new long[bytes.length / 8];
        fromRedisBytes(bytes, words, 0);
        bits.mergeWords(Math.toIntExact(firstWord), words, words.length);
    }
}
