package io.bloomguard.redis;

import io.bloomguard.core.FillEstimate;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The last fill a filter read from Redis ({@code BITCOUNT} of its bitmaps), kept so that asking for it never waits
 * on Redis nor fails while it is down. The maintenance task reads it again every few refreshes: a {@code BITCOUNT}
 * scans the whole bitmap, too much to repeat every refresh for a large filter.
 *
 * <p>Usage: in maintenance {@code fill.refreshIfDue(this::readFill)}; to answer {@code fill.current(answering)}.
 */
final class RedisFillEstimate {

    /** Refreshes between two reads of the fill. */
    static final int REFRESHES_PER_READ = 10;

    private final long everyNanos;
    private volatile FillEstimate last = FillEstimate.UNKNOWN;
    private volatile boolean lastReadFailed;
    private volatile long nextRead = System.nanoTime();

    RedisFillEstimate(Duration refreshInterval) {
        this.everyNanos = refreshInterval.multipliedBy(REFRESHES_PER_READ).toNanos();
    }

    /**
     * Reads the fill if it was last read a while ago (or never).
     *
     * @throws RedisUnavailableException when Redis does not answer: the last value stays, marked stale
     */
    void refreshIfDue(Supplier<FillEstimate> read) {
        if (System.nanoTime() - nextRead < 0) {
            return;
        }
        try {
            last = read.get();
            lastReadFailed = false;
            nextRead = System.nanoTime() + everyNanos;
        }
        catch (RedisUnavailableException ex) {
            lastReadFailed = true;
            throw ex;
        }
    }

    /** Reads it at the next refresh: the filter changed (it was loaded, rebuilt, or Redis is back). */
    void readSoon() {
        nextRead = System.nanoTime();
    }

    /**
     * The last fill read; stale when the last read failed or Redis does not answer the filter now.
     *
     * @param answering whether Redis answers the filter's commands (no outage, no refusal)
     */
    FillEstimate current(boolean answering) {
        return last.withStale(lastReadFailed || !answering);
    }
}
