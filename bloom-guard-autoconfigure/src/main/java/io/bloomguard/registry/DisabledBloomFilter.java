package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

/**
 * What a configured filter holds while bloom-guard is switched off ({@code bloom-guard.enabled=false}): no bits.
 * A switched-off application allocates no filter memory and sends nothing to Redis, which is often why the
 * switch is thrown; the filter bean still exists, so code that injects it starts.
 *
 * <p>It answers as a filter that cannot vouch for anything: every key might be in it, and every put might be
 * a new key ({@code true}), so that code deduplicating with {@code if (filter.put(key)) process(key)} processes
 * every key rather than silently skipping them, as Spring's {@code NoOpCache} reports every key absent. Code
 * whose termination depends on {@code put} answering {@code false} (a crawl over links with cycles) needs its
 * own record of what it has seen while bloom-guard is off. It reports the configured sizing, and holds no bits
 * and no keys.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class DisabledBloomFilter implements BloomFilter {

    private final FilterSizing sizing;

    public DisabledBloomFilter(FilterSizing sizing) {
        this.sizing = sizing;
    }

    @Override
    public boolean mightContain(Object key) {
        return true;
    }

    @Override
    public boolean put(Object key) {
        return true;
    }

    @Override
    public long approximateElementCount() {
        return 0;
    }

    /** Every key is let through, as if every check were a false positive. */
    @Override
    public double expectedFpp() {
        return 1.0;
    }

    @Override
    public long bitSize() {
        return 0;
    }

    @Override
    public int hashCount() {
        return sizing.hashCount();
    }

    @Override
    public FilterSizing sizing() {
        return sizing;
    }

    @Override
    public int seed() {
        return 0;
    }

    @Override
    public String toString() {
        return "DisabledBloomFilter[n=" + sizing.expectedSize() + ", ε=" + sizing.errorRate() + "]";
    }
}
