package io.bloomguard.core;

/**
 * Where a counting filter's counters go: at the positions {@link BlockedBloomLayout} names, each a
 * {@value #COUNTER_BITS}-bit counter instead of a bit. Position {@code p} (the bit number the blocked layout gives)
 * is counter {@code p}: bits {@code 4p} to {@code 4p + 3} of the counter array, so counter {@code p % 16} (least
 * significant first) of 64-bit word {@code p / 16}. How a backend stores counter {@code p} is its own business, as
 * for bits (in Redis, the {@code u4} field {@code #p} of a {@code BITFIELD} would do).
 *
 * <p>Same positions, so the counters that are not zero are exactly the bits a plain filter of the same size and seed
 * would have set: the sizing, the false-positive model and the key estimate of {@link FilterSizing} hold unchanged,
 * and a check still reads one block (512 counters, 256 bytes: four adjacent cache lines instead of one).
 *
 * <p>Why 4 bits: a counter overflows only if 16 of the {@code k·n} probes land on it. With {@code k} sized as for a
 * Bloom filter, a counter's load averages {@code k·n/m ≈ ln 2}, and the chance that any of {@code m} counters reaches
 * 16 is below {@code 1.4·10⁻¹⁵·m} (Fan, Cao, Almeida and Broder, "Summary Cache", 2000); even in a block holding
 * twice the average keys (itself a 10⁻¹⁰ event) a counter reaches 16 with probability about 2·10⁻¹². Three bits
 * would overflow in practice; eight would double the memory for nothing.
 * A counter that does reach {@value #MAX_COUNT} saturates: it is never decremented again, because it no longer knows
 * how many keys it counts, so a remove can never take it to zero under another key. The cost is a key that stays in
 * as a false positive until the next rebuild.
 *
 * <p>Usage: {@code int word = CountingBlockLayout.wordInBlock(probe); int shift = CountingBlockLayout.shiftInWord(probe);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class CountingBlockLayout {

    /** Bits per counter. */
    public static final int COUNTER_BITS = 4;

    /** Largest count; a counter that reaches it stays there. */
    public static final int MAX_COUNT = (1 << COUNTER_BITS) - 1;

    /** Counters in one 64-bit word. */
    public static final int COUNTERS_PER_WORD = Long.SIZE / COUNTER_BITS;

    /** 64-bit words in one block of {@value BlockedBloomLayout#BLOCK_BITS} counters. */
    public static final int BLOCK_WORDS = BlockedBloomLayout.BLOCK_BITS / COUNTERS_PER_WORD;

    private CountingBlockLayout() {
    }

    /** Word inside the block (0–31) holding the counter a probe selects: {@code bitInBlock(probe) / 16}. */
    public static int wordInBlock(long probe) {
        return (int) (probe >>> 59);
    }

    /** Shift of the counter a probe selects inside its word: {@code 4 · (bitInBlock(probe) % 16)}. */
    public static int shiftInWord(long probe) {
        return ((int) (probe >>> 55) & (COUNTERS_PER_WORD - 1)) << 2;
    }

    /** Bytes the counters of a filter of this size take. */
    public static long byteSize(FilterSizing sizing) {
        return sizing.bitSize() * COUNTER_BITS / Byte.SIZE;
    }
}
