package io.bloomguard.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Adds that could not reach Redis, kept for replay up to a bound. Past the bound keys are dropped and the
 * buffer remembers it: the filter then needs a rebuild, because replay can no longer make it complete.
 */
final class PendingAdds {

    private final int limit;
    private final ConcurrentLinkedQueue<Object> keys = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private volatile boolean overflowed;

    PendingAdds(int limit) {
        this.limit = limit;
    }

    void addAll(Collection<?> added) {
        for (Object key : added) {
            if (size.incrementAndGet() > limit) {
                size.decrementAndGet();
                overflowed = true;
            }
            else {
                keys.add(key);
            }
        }
    }

    /** Takes up to {@code max} keys out, oldest first. */
    List<Object> drain(int max) {
        List<Object> drained = new ArrayList<>();
        Object key;
        while (drained.size() < max && (key = keys.poll()) != null) {
            size.decrementAndGet();
            drained.add(key);
        }
        return drained;
    }

    boolean isEmpty() {
        return size.get() == 0;
    }

    int size() {
        return size.get();
    }

    /** Whether keys were dropped since {@link #clearOverflow()}: only a rebuild can make the filter whole. */
    boolean overflowed() {
        return overflowed;
    }

    void clearOverflow() {
        overflowed = false;
    }
}
