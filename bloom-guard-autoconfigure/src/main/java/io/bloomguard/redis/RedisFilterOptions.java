package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.NearCopyMode;

/**
 * How one {@link RedisBloomFilter} is laid out and behaves, as {@link RedisFilterBackend}'s factories chose: its seed
 * and shards, whether its positions are bits, counters or layers, what its puts do when Redis does not answer, and
 * whether it keeps a near copy.
 *
 * <p>Usage: {@code new RedisFilterOptions(seed, shards, Kind.COUNTING, AddFailurePolicy.BUFFER, NearCopyMode.OFF)}
 *
 * @param seed           seed for when this instance creates the filter in Redis
 * @param shards         keys the filter is split over
 * @param kind           plain, counting ({@code type: counting}) or grown by layers ({@code growth: scale})
 * @param onAddFailure   what puts do when Redis does not answer
 * @param nearCopy       whether this instance keeps a copy of the bits, and how it follows Redis
 */
record RedisFilterOptions(int seed, int shards, Kind kind, AddFailurePolicy onAddFailure, NearCopyMode nearCopy) {

    /** What each position of the filter is, and whether it grows. */
    enum Kind {
        /** One bit a position. */
        PLAIN,
        /** A 4-bit counter a position, so that keys can be removed. */
        COUNTING,
        /** Bits, in layers added as the newest fills. */
        LAYERED
    }

    /** Whether each position is a 4-bit counter. */
    boolean counting() {
        return kind == Kind.COUNTING;
    }

    /** Whether it grows by layers. */
    boolean layered() {
        return kind == Kind.LAYERED;
    }
}
