package io.bloomguard.core;

/**
 * How a cuckoo filter ({@code type: cuckoo}) is sized from the same expected size and error rate as a Bloom filter:
 * buckets of {@value #BUCKET_SLOTS} fingerprint slots, as many as the expected size fills to {@value #MAX_LOAD}, each
 * fingerprint {@code f} bits. The bucket count need not be a power of two: a fingerprint's other bucket is
 * {@code (h(fp) − i) mod buckets}, its own inverse for any count (the usual {@code i XOR h(fp)} needs a power of two,
 * which leaves a table up to half empty and costs up to twice the memory).
 *
 * <p>A check compares the key's fingerprint with the up to {@code 2·4} held in its two buckets; each matches by chance
 * with probability {@code 1/(2^f − 1)} (fingerprint 0 marks an empty slot), so the false-positive rate at load
 * {@code α} is about {@code 8α/2^f} (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically Better
 * Than Bloom", 2014). {@code f = ⌈log2(8/ε)⌉} keeps it at or below {@code 0.95·ε} at the most load the sizing allows,
 * the same margin {@link FilterSizing} keeps (a filter sized for few keys, whose table rounds up, is emptier). Fingerprints are {@value #MIN_FINGERPRINT_BITS} to
 * {@value #MAX_FINGERPRINT_BITS} bits: fewer than 8 would make an eviction chain fail long before the table is full.
 *
 * <p>Usage: {@code CuckooLayout layout = CuckooLayout.of(FilterSizing.of(100_000, 0.01)); layout.byteSize();}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 *
 * @param bucketCount     buckets, at least 2
 * @param fingerprintBits bits per fingerprint
 */
public record CuckooLayout(int bucketCount, int fingerprintBits) {

    /** Fingerprint slots per bucket. */
    public static final int BUCKET_SLOTS = 4;

    /** Most share of the slots the expected keys fill. */
    public static final double MAX_LOAD = 0.95;

    public static final int MIN_FINGERPRINT_BITS = 8;

    public static final int MAX_FINGERPRINT_BITS = 32;

    /** Most buckets: a bucket index is an int, and the slots of the largest fingerprints fill a Java array. */
    public static final int MAX_BUCKETS = 1 << 29;

    /** Smallest error rate a 32-bit fingerprint meets: {@code 8/2^32} over the margin. */
    public static final double MIN_ERROR_RATE = 8.0 / (1L << MAX_FINGERPRINT_BITS) / FilterSizing.DESIGN_MARGIN;

    public CuckooLayout {
        if (bucketCount < 2 || bucketCount > MAX_BUCKETS) {
            throw new IllegalArgumentException("bucketCount must be from 2 to " + MAX_BUCKETS
                    + ", was " + bucketCount);
        }
        if (fingerprintBits < MIN_FINGERPRINT_BITS || fingerprintBits > MAX_FINGERPRINT_BITS) {
            throw new IllegalArgumentException("fingerprintBits must be from " + MIN_FINGERPRINT_BITS + " to "
                    + MAX_FINGERPRINT_BITS + ", was " + fingerprintBits);
        }
    }

    /**
     * The layout for a sizing's expected size and error rate.
     *
     * @throws IllegalArgumentException when it would need more than {@value #MAX_BUCKETS} buckets
     */
    public static CuckooLayout of(FilterSizing sizing) {
        return of(sizing.expectedSize(), sizing.errorRate());
    }

    /** See {@link #of(FilterSizing)}. */
    public static CuckooLayout of(long expectedSize, double errorRate) {
        int bits = (int) Math.ceil(log2(2.0 * BUCKET_SLOTS / errorRate));
        bits = Math.max(MIN_FINGERPRINT_BITS, Math.min(MAX_FINGERPRINT_BITS, bits));
        long needed = Math.max(2, (long) Math.ceil(expectedSize / (BUCKET_SLOTS * MAX_LOAD)));
        if (needed > MAX_BUCKETS) {
            throw new IllegalArgumentException("a cuckoo filter for " + expectedSize + " keys needs more than "
                    + MAX_BUCKETS + " buckets of " + BUCKET_SLOTS + "; lower expected-size");
        }
        return new CuckooLayout((int) needed, bits);
    }

    /** Bytes the table of a filter of this size takes. */
    public static long byteSize(FilterSizing sizing) {
        return of(sizing).byteSize();
    }

    /** Fingerprint slots. */
    public long slotCount() {
        return (long) bucketCount * BUCKET_SLOTS;
    }

    /** Bits of the table: every slot's fingerprint. */
    public long bitSize() {
        return slotCount() * fingerprintBits;
    }

    /** Bytes of the table, in whole 64-bit words. */
    public long byteSize() {
        return (bitSize() + Long.SIZE - 1) / Long.SIZE * Long.BYTES;
    }

    /** Expected false-positive probability with {@code keys} fingerprints in the table. */
    public double falsePositiveProbability(double keys) {
        double load = Math.min(1.0, keys / slotCount());
        double miss = 1.0 - 1.0 / ((1L << fingerprintBits) - 1);
        return 1.0 - Math.pow(miss, 2.0 * BUCKET_SLOTS * load);
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
