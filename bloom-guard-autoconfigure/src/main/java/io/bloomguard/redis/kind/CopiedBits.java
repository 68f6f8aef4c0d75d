package io.bloomguard.redis.kind;

import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;

import java.util.List;

/**
 * What a near copy holds of a build, part by part as Redis keeps it: a plain filter's bits and a counting filter's
 * counters a shard a part ({@link LocalBloomFilter}, {@link LocalCountingFilter}), the layers of one that grows by
 * layers a layer a part; with the ways Redis's bytes and published changes go into them. Positions are those of a
 * part: Redis bit (or field) {@code o} of the part's key.
 *
 * <p>Why the counters never fall below Redis's, which is what makes a copy's "absent" safe: a whole read writes what
 * Redis held (adds that arrive meanwhile are applied again after it, removes are left out), a block a check read
 * only raises counters, an add raises them as Redis does (saturating at 15), and a remove lowers them only when it
 * arrives in order, as Redis lowered them. A counter above Redis's is a false positive, no more.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface CopiedBits {

    boolean mightContain(Object key);

    boolean[] mightContainAll(List<?> keys);

    /** Words of 64 bits in part {@code part}, as Redis keeps it. */
    long words(int part);

    /** Writes words of part {@code part} read whole from Redis ({@code bytes}), from word {@code fromWord} of it on. */
    void readWords(int part, int fromWord, byte[] bytes);

    /** Merges block {@code block} (numbered across the shards) as a check read it: bits ORed in, counters raised. */
    void learnBlock(long block, byte[] bytes);

    /** A key this instance is adding: its bits set, before Redis has them (a counting copy leaves it to Redis). */
    void learnKey(Object key);

    /** An add Redis processed: positions in part {@code part}, {@code positions[from]} on. */
    void added(int part, String[] positions, int from);

    /** A remove Redis processed, in order: each counter, unless zero or saturated, lowered. */
    void removed(int part, String[] positions, int from);

    /** Heap the copy takes. */
    long bytes();

    /**
     * Whether a whole read writes counters over rather than ORing bits in: an add applied before its chunk's older
     * bytes arrive would be lost until the read ends, so a copy kept in step is out of step during one.
     */
    default boolean overwrites() {
        return false;
    }
}
