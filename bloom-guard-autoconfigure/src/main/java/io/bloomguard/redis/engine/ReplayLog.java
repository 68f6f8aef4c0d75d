package io.bloomguard.redis.engine;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The adds Redis acknowledged to this instance lately, each with its number in the record it was counted under
 * ({@link RedisAcknowledgedAdds}), kept so that the ones a failover or a restore took can be written again. Bounded
 * by keys held and by age ({@code redis.replay-log-size}, {@code redis.replay-log-age}): the oldest go first, and the
 * log remembers how far it let go of each record, so that it can tell whether it still holds every add after a count.
 *
 * <p>Usage: {@code log.add(record, 42, keys); ... if (log.holdsAllAfter(record, 40)) replay(log.after(record, 40));}
 */
final class ReplayLog {

    private final int maxKeys;
    private final long maxAgeNanos;
    private final LongSupplier nanoTime;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    /** For each record, the highest number this log let go of: adds up to it can no longer be replayed. */
    private final Map<String, Long> releasedThrough = new HashMap<>();
    private long keysHeld;

    ReplayLog(int maxKeys, Duration maxAge, LongSupplier nanoTime) {
        this.maxKeys = maxKeys;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The add numbered {@code number} in {@code record} (a shard's metadata and a record in it) wrote {@code keys}. */
    synchronized void add(String record, long number, List<Object> keys) {
        entries.addLast(new Entry(record, number, nanoTime.getAsLong(), List.copyOf(keys)));
        keysHeld += keys.size();
        release();
    }

    /** The keys of every add of {@code record} numbered above {@code count}, oldest first. */
    synchronized List<Object> after(String record, long count) {
        release();
        List<Object> keys = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.record.equals(record) && entry.number > count) {
                keys.addAll(entry.keys);
            }
        }
        return keys;
    }

    /** Whether this log still holds every add of {@code record} numbered above {@code count}. */
    synchronized boolean holdsAllAfter(String record, long count) {
        release();
        return releasedThrough.getOrDefault(record, 0L) <= count;
    }

    /** Keys held now. */
    synchronized long keys() {
        release();
        return keysHeld;
    }

    private void release() {
        long now = nanoTime.getAsLong();
        Entry oldest;
        while ((oldest = entries.peekFirst()) != null
                && (keysHeld > maxKeys || now - oldest.addedAt > maxAgeNanos)) {
            entries.removeFirst();
            keysHeld -= oldest.keys.size();
            releasedThrough.merge(oldest.record, oldest.number, Math::max);
        }
    }

    private record Entry(String record, long number, long addedAt, List<Object> keys) {
    }
}
