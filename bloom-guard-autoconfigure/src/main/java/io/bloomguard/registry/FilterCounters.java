package io.bloomguard.registry;

import java.util.EnumMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The live counters behind {@link FilterStats}; contention-free, so the guard can count every call.
 *
 * @since 0.1.0
 */
public final class FilterCounters {

    private final LongAdder rejected = new LongAdder();
    private final LongAdder passed = new LongAdder();
    private final EnumMap<SkipReason, LongAdder> skipped = new EnumMap<>(SkipReason.class);
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

    public FilterCounters() {
        for (SkipReason reason : SkipReason.values()) {
            skipped.put(reason, new LongAdder());
        }
    }

    public void skipped(SkipReason reason) {
        skipped.get(reason).increment();
    }

    /** Calls that went through unchecked for {@code reason}, so far. */
    public long skippedFor(SkipReason reason) {
        return skipped.get(reason).sum();
    }

    public void falsePositive() {
        falsePositives.increment();
    }

    /**
     * The keys of one pruned multi-key call, each counted as a call of its own would be: {@code passed} might exist,
     * {@code rejected} were dropped, {@code shadowRejected} would have been dropped in {@code enforce} mode.
     */
    public void keysChecked(long passed, long rejected, long shadowRejected) {
        this.passed.add(passed);
        this.rejected.add(rejected);
        this.shadowRejections.add(shadowRejected);
    }

    /** Keys of a multi-key call that went through unchecked for {@code reason}. */
    public void skipped(SkipReason reason, long keys) {
        skipped.get(reason).add(keys);
    }

    /** Keys of a multi-key call that passed and whose call then found nothing. */
    public void falsePositives(long keys) {
        falsePositives.add(keys);
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
        long allSkipped = 0;
        for (LongAdder reason : skipped.values()) {
            allSkipped += reason.sum();
        }
        return new FilterStats(rejected.sum(), passed.sum(), allSkipped, falsePositives.sum(),
                shadowRejections.sum(), shadowFalseNegatives.sum(), backendErrors.sum(), puts.sum());
    }
}
