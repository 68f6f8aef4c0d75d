package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * What a filter has seen since it was created: one consistent-enough snapshot of its counters.
 *
 * @param rejected             guarded calls answered with an empty value (enforce mode)
 * @param passed               guarded calls the filter let through because the key might exist
 * @param skipped              guarded calls not decided by the filter, for any {@link SkipReason}
 * @param falsePositives       calls let through whose method then returned an empty value: the measured
 *                             false positives in enforce mode
 * @param shadowRejections     calls shadow mode would have rejected
 * @param shadowFalseNegatives of those, calls whose method returned a value: keys missing from the filter
 * @param backendErrors        checks or puts that failed in the backend
 * @param puts                 keys added through {@code @BloomPut} or the API (the preload's keys are counted
 *                             in its own result, not here)
 * @param estimatesAsOf        shared filters: when the filter's {@code approximateElementCount()} and
 *                             {@code expectedFpp()} were last read from the store (they are read in the background,
 *                             never while asked); {@code null} for a local filter, whose values are always current,
 *                             or when the store has not been read yet
 * @param estimatesStale       shared filters: whether the store could not be read since {@code estimatesAsOf}
 *                             (unreachable, or refusing this instance): the values are the last known ones
 *
 * @since 0.1.0
 */
public record FilterStats(long rejected, long passed, long skipped, long falsePositives, long shadowRejections,
        long shadowFalseNegatives, long backendErrors, long puts, @Nullable Instant estimatesAsOf,
        boolean estimatesStale) {

    /** The counters alone, of a filter whose estimates are always current (a local one). */
    public FilterStats(long rejected, long passed, long skipped, long falsePositives, long shadowRejections,
            long shadowFalseNegatives, long backendErrors, long puts) {
        this(rejected, passed, skipped, falsePositives, shadowRejections, shadowFalseNegatives, backendErrors, puts,
                null, false);
    }

    /** The same counters, with the freshness of a shared filter's estimates. */
    public FilterStats withEstimates(@Nullable Instant asOf, boolean stale) {
        return new FilterStats(rejected, passed, skipped, falsePositives, shadowRejections, shadowFalseNegatives,
                backendErrors, puts, asOf, stale);
    }

    /**
     * Measured false-positive rate, comparable to the configured error rate: of the checked keys that turned
     * out absent (rejected, or let through and found empty), the share the filter let through.
     */
    public double measuredFalsePositiveRate() {
        long absent = rejected + falsePositives;
        return absent == 0 ? 0.0 : (double) falsePositives / absent;
    }
}
