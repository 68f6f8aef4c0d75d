package io.bloomguard.redis.engine;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.port.RedisUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The last fill a filter read from Redis ({@code BITCOUNT} of its bitmaps, or of each layer of one that grows by
 * layers; the counters above zero of a counting filter's, counted by a script), kept so that
 * asking for it never waits on Redis nor fails while it is down. The maintenance task reads it again every few refreshes: a {@code BITCOUNT}
 * scans the whole bitmap, too much to repeat every refresh for a large filter.
 *
 * <p>Usage: in maintenance {@code fill.refreshIfDue()}; to answer {@code fill.current(answering)}.
 */
final class RedisFillEstimate {

    /** Refreshes between two reads of the fill. */
    static final int REFRESHES_PER_READ = 10;

    private final long everyNanos;
    private final FilterSizing sizing;
    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    private volatile FillEstimate last = FillEstimate.UNKNOWN;
    private volatile boolean lastReadFailed;
    private volatile long nextRead = System.nanoTime();
    private volatile Runnable listener = () -> { };
    private volatile long layerSetBits = -1;

    public RedisFillEstimate(Duration refreshInterval, FilterSizing sizing, RedisStoredState state,
            RedisFilterCommands commands) {
        this.everyNanos = refreshInterval.multipliedBy(REFRESHES_PER_READ).toNanos();
        this.sizing = sizing;
        this.state = state;
        this.commands = commands;
    }

    /**
     * Reads the fill now: one {@code BITCOUNT} per shard of the live generation; none, and no keys, without one.
     *
     * @throws RedisUnavailableException when Redis does not answer
     */
    public FillEstimate read() {
        RedisFilterView current = state.view();
        Generation live = current.generation;
        if (live == null) {
            return new FillEstimate(0, 0.0, Instant.now(), false);
        }
        FilterSizing stored = (current.liveSizing != null) ? current.liveSizing : live.identity().sizing(sizing);
        Generation.Fill fill = live.readFill(commands::call, stored);
        if (fill.layerSetBits() >= 0) {
            layerSetBits = fill.layerSetBits();
        }
        return new FillEstimate(fill.keys(), fill.falsePositiveProbability(), Instant.now(), false);
    }

    /**
     * Bits set in all layers of a filter that grows by layers, as last read: its fill ratio comes from them, since the
     * keys alone do not say how they spread over layers of different sizes. Empty for another filter, and before a
     * read.
     */
    public OptionalLong layerSetBits() {
        long counted = layerSetBits;
        return (counted >= 0) ? OptionalLong.of(counted) : OptionalLong.empty();
    }

    /**
     * Reads the fill if it was last read a while ago (or never).
     *
     * @throws RedisUnavailableException when Redis does not answer: the last value stays, marked stale
     */
    public void refreshIfDue() {
        if (System.nanoTime() - nextRead < 0) {
            return;
        }
        try {
            last = read();
            lastReadFailed = false;
            nextRead = System.nanoTime() + everyNanos;
        }
        catch (RedisUnavailableException ex) {
            lastReadFailed = true;
            throw ex;
        }
        listener.run();
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#onFillRead}. */
    public void onRead(Runnable listener) {
        this.listener = listener;
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
    public FillEstimate current(boolean answering) {
        return last.withStale(lastReadFailed || !answering);
    }
}
