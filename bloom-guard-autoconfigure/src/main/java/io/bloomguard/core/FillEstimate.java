package io.bloomguard.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * How full a shared filter is, as last read from its store: what {@link BloomFilter#approximateElementCount()} and
 * {@link BloomFilter#expectedFpp()} answered then. Read in the background, so that asking never waits on the store
 * and never fails while it is down.
 *
 * <p>Usage: {@code FillEstimate fill = shared.lastEstimate(); if (fill.stale()) ...}
 *
 * @param approximateElementCount keys estimated from the bits set
 * @param expectedFpp             false-positive probability at that many keys
 * @param asOf                    when the store answered with them; {@code null} when it has not yet
 * @param stale                   whether the store could not be read since (unreachable, or refusing this
 *                                instance): the values are the last known ones
 *
 * @since 0.1.0
 */
public record FillEstimate(long approximateElementCount, double expectedFpp, @Nullable Instant asOf, boolean stale) {

    /** Nothing read yet. */
    public static final FillEstimate UNKNOWN = new FillEstimate(0, 0.0, null, false);

    /** The same values, stale or not. */
    public FillEstimate withStale(boolean stale) {
        return (stale == this.stale) ? this : new FillEstimate(approximateElementCount, expectedFpp, asOf, stale);
    }
}
