package io.bloomguard.registry;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link FilterStats}; contention-free, so the guard can count every call. */
public final class FilterCounters {

    private final LongAdder rejected = new LongAdder();
    private final LongAdder passed = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder falsePositives = new LongAdder();
    private final LongAdder shadowRejections = new LongAdder();
    private final LongAdder shadowFalseNegatives = new LongAdder();
    private final LongAdder backendErrors = new LongAdder();
    private final LongAdder puts = new LongAdder();

    public void rejected() {
        rejected.increment();
    }

    public void passed() {
        passed.increment();
    }

    public void skipped() {
        skipped.increment();
    }

    public void falsePositive() {
        falsePositives.increment();
    }

    public void shadowRejection() {
        shadowRejections.increment();
    }

    public void shadowFalseNegative() {
        shadowFalseNegatives.increment();
    }

    public void backendError() {
        backendErrors.increment();
    }

    void puts(long count) {
        puts.add(count);
    }

    public FilterStats snapshot() {
        return new FilterStats(rejected.sum(), passed.sum(), skipped.sum(), falsePositives.sum(),
                shadowRejections.sum(), shadowFalseNegatives.sum(), backendErrors.sum(), puts.sum());
    }
}
