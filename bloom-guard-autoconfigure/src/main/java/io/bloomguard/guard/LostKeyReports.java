package io.bloomguard.guard;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How often a lost {@code @BloomPut} key is logged: the first loss of a method at once, then at most one report a
 * minute for it, counting what came between. While a store refuses every add, each write would otherwise log an
 * error of its own.
 */
final class LostKeyReports {

    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /**
     * Whether to log this loss of {@code method}'s key now; if so, {@code suppressed} says how many losses since the
     * last report went unlogged.
     */
    long reportNow(String method) {
        return windows.computeIfAbsent(method, unused -> new Window()).reportNow();
    }

    /** One method's reports. */
    private static final class Window {

        private long lastReport = System.nanoTime() - INTERVAL_NANOS;
        private final AtomicLong suppressed = new AtomicLong();

        /** The losses unreported since the last report if this one is reported, else -1. */
        synchronized long reportNow() {
            long now = System.nanoTime();
            if (now - lastReport < INTERVAL_NANOS) {
                suppressed.incrementAndGet();
                return -1;
            }
            lastReport = now;
            return suppressed.getAndSet(0);
        }
    }
}
