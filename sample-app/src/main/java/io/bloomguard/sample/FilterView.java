package io.bloomguard.sample;

import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.NamedBloomFilter;

/**
 * One filter as {@code GET /stats} shows it: its size and fill next to what the guard did with it.
 *
 * @param configuredErrorRate       the error rate the filter was sized for, at its expected size
 * @param expectedFpp               false-positive probability expected now, at its current fill
 * @param measuredFalsePositiveRate share of absent keys the filter let through, as the guard counted them
 */
public record FilterView(String name, String state, long expectedSize, double configuredErrorRate,
        long approximateElementCount, double expectedFpp, long bitSize, int hashCount, FilterStats stats,
        double measuredFalsePositiveRate) {

    static FilterView of(NamedBloomFilter filter) {
        FilterStats stats = filter.stats();
        return new FilterView(filter.name(), filter.state().name(), filter.spec().expectedSize(),
                filter.spec().errorRate(), filter.approximateElementCount(), filter.expectedFpp(), filter.bitSize(),
                filter.hashCount(), stats, stats.measuredFalsePositiveRate());
    }
}
