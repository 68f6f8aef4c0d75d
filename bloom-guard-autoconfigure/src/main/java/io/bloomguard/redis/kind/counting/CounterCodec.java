package io.bloomguard.redis.kind.counting;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.Hash128;

/**
 * Between a counting filter's counter words ({@link CountingBlockLayout}: counter {@code p} is bits {@code 4p} to
 * {@code 4p + 3}, least significant first) and Redis strings, where counter {@code p} is the {@code BITFIELD} field
 * {@code u4 #p}: the high nibble of byte {@code p / 2} for an even {@code p}, the low nibble for an odd one. So a
 * script can change one counter with {@code BITFIELD ... INCRBY u4 #p}, and the loader uploads counters built in
 * the JVM as it uploads bits.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class CounterCodec {

    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;

    private CounterCodec() {
    }

    /** Redis bytes of {@code count} counter words starting at {@code from}. */
    public static byte[] toRedisBytes(long[] words, int from, int count) {
        byte[] bytes = new byte[count * 8];
        for (int i = 0; i < count; i++) {
            long swapped = swapNibbles(words[from + i]);
            for (int b = 0; b < 8; b++) {
                bytes[i * 8 + b] = (byte) (swapped >>> (8 * b)); // little-endian: counters 2b and 2b + 1
            }
        }
        return bytes;
    }

    /** Writes Redis bytes (a whole number of words) into {@code words} starting at word {@code from}. */
    public static void fromRedisBytes(byte[] bytes, long[] words, int from) {
        for (int i = 0; i < bytes.length / 8; i++) {
            long swapped = 0;
            for (int b = 7; b >= 0; b--) {
                swapped = (swapped << 8) | (bytes[i * 8 + b] & 0xFF);
            }
            words[from + i] = swapNibbles(swapped);
        }
    }

    /** Counter {@code position} (0–511) of a block read with {@code GETRANGE}. */
    public static int count(byte[] block, int position) {
        int value = block[position >>> 1] & 0xFF;
        return ((position & 1) == 0) ? value >>> 4 : value & 0x0F;
    }

    /** Whether a block of counters holds all {@code hashCount} of a key's positions: each counter above zero. */
    public static boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        long step = BlockedBloomLayout.step(hash.h1());
        long probe = hash.h2();
        for (int i = 0; i < hashCount; i++) {
            if (count(block, BlockedBloomLayout.bitInBlock(probe)) == 0) {
                return false;
            }
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return true;
    }

    private static long swapNibbles(long word) {
        return ((word & LOW_NIBBLES) << 4) | ((word >>> 4) & LOW_NIBBLES);
    }
}
