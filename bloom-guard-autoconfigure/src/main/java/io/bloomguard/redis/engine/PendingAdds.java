package io.bloomguard.redis.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Adds that could not reach Redis, kept for replay up to a bound. Past the bound keys are dropped and the
 * buffer counts them: the filter then needs a rebuild, because replay can no longer make it complete. The drops
 * are counted rather than flagged so that a rebuild makes up for exactly those before it, not for one made while
 * it ran.
 */
final class PendingAdds implements DroppedAdds {

    private final int limit;
    private final ConcurrentLinkedQueue<Object> keys = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    /** Keys dropped past the bound, ever. */
    private final AtomicLong dropped = new AtomicLong();
    /** How many of the dropped keys a rebuild has made up for (it read the key source after they were dropped). */
    private final AtomicLong recovered = new AtomicLong();

    public PendingAdds(int limit) {
        this.limit = limit;
    }

    void addAll(Collection<?> added) {
        for (Object key : added) {
            if (size.incrementAndGet() > limit) {
                size.decrementAndGet();
                dropped.incrementAndGet();
            }
            else {
                keys.add(key);
            }
        }
    }

    /**
     * Keys Redis had acknowledged and lost, from the replay log: kept whatever the bound, which the log's own bound
     * ({@code replay-log-size}) has applied already. Dropped here, they would need a rebuild that a filter filled by
     * puts alone cannot have.
     */
    void addLost(Collection<?> lost) {
        keys.addAll(lost);
        size.addAndGet(lost.size());
    }

    /**
     * Takes up to {@code max} keys out for replay, oldest first. They still count as pending (the filter is not
     * complete until they are written) until {@link #written} or {@link #putBack} says how their write went.
     */
    List<Object> drain(int max) {
        List<Object> drained = new ArrayList<>();
        Object key;
        while (drained.size() < max && (key = keys.poll()) != null) {
            drained.add(key);
        }
        return drained;
    }

    /** {@code count} drained keys are in Redis now. */
    void written(int count) {
        size.addAndGet(-count);
    }

    /** Drained keys whose write failed, kept for the next replay (still counted: no bound applies). */
    void putBack(Collection<?> unwritten) {
        keys.addAll(unwritten);
    }

    boolean isEmpty() {
        return size.get() == 0;
    }

    int size() {
        return size.get();
    }

    @Override
    public boolean overflowed() {
        return dropped.get() > recovered.get();
    }

    @Override
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void recovered(long drops) {
        recovered.accumulateAndGet(drops, Math::max);
    }
}
