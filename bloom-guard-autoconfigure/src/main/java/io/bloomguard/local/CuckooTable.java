package io.bloomguard.local;

import io.bloomguard.core.CuckooLayout;

/**
 * A cuckoo filter's slots: {@link CuckooLayout#BUCKET_SLOTS} per bucket, each an {@code f}-bit fingerprint packed
 * back to back in 64-bit words (slot {@code s} at bit {@code s·f}), 0 for an empty slot. Not thread-safe:
 * {@link LocalCuckooFilter} guards it.
 */
final class CuckooTable {

    private final long[] words;
    private final int bits;
    private final long mask;

    CuckooTable(CuckooLayout layout) {
        this.bits = layout.fingerprintBits();
        this.mask = (1L << bits) - 1;
        // One word more: a slot that straddles the last word boundary reads the next word without a check.
        this.words = new long[Math.toIntExact(layout.byteSize() / Long.BYTES) + 1];
    }

    /** The fingerprint in slot {@code slot} of bucket {@code bucket}; 0 when it is empty. */
    long get(int bucket, int slot) {
        long bit = ((long) bucket * CuckooLayout.BUCKET_SLOTS + slot) * bits;
        int word = (int) (bit >>> 6);
        int shift = (int) (bit & 63);
        long value = words[word] >>> shift;
        if (shift + bits > Long.SIZE) {
            value |= words[word + 1] << (Long.SIZE - shift);
        }
        return value & mask;
    }

    void set(int bucket, int slot, long fingerprint) {
        long bit = ((long) bucket * CuckooLayout.BUCKET_SLOTS + slot) * bits;
        int word = (int) (bit >>> 6);
        int shift = (int) (bit & 63);
        words[word] = (words[word] & ~(mask << shift)) | (fingerprint << shift);
        if (shift + bits > Long.SIZE) {
            int high = Long.SIZE - shift;
            words[word + 1] = (words[word + 1] & ~(mask >>> high)) | (fingerprint >>> high);
        }
    }

    /** The slot of {@code bucket} holding {@code fingerprint}, or -1. */
    int find(int bucket, long fingerprint) {
        for (int slot = 0; slot < CuckooLayout.BUCKET_SLOTS; slot++) {
            if (get(bucket, slot) == fingerprint) {
                return slot;
            }
        }
        return -1;
    }

    /** How many slots of {@code bucket} hold {@code fingerprint}. */
    int count(int bucket, long fingerprint) {
        int count = 0;
        for (int slot = 0; slot < CuckooLayout.BUCKET_SLOTS; slot++) {
            count += (get(bucket, slot) == fingerprint) ? 1 : 0;
        }
        return count;
    }

    /** Puts {@code fingerprint} in an empty slot of {@code bucket}, if it has one. */
    boolean add(int bucket, long fingerprint) {
        int empty = find(bucket, 0);
        if (empty < 0) {
            return false;
        }
        set(bucket, empty, fingerprint);
        return true;
    }

    /** Empties one slot of {@code bucket} holding {@code fingerprint}, if one does. */
    boolean delete(int bucket, long fingerprint) {
        int slot = find(bucket, fingerprint);
        if (slot < 0) {
            return false;
        }
        set(bucket, slot, 0);
        return true;
    }

    /** Puts {@code fingerprint} in slot {@code slot} of {@code bucket}, returning the one it replaces. */
    long swap(int bucket, int slot, long fingerprint) {
        long was = get(bucket, slot);
        set(bucket, slot, fingerprint);
        return was;
    }

    long byteSize() {
        return (long) words.length * Long.BYTES;
    }
}
