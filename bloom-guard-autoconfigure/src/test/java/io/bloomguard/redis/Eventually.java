package io.bloomguard.redis;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for background work (a maintenance tick, a takeover, a reconnect) by polling a condition against a
 * deadline, so that tests neither sleep a fixed time nor hang.
 *
 * <p>Usage: {@code Duration took = Eventually.until("B is ready", () -> b.status() == READY, Duration.ofSeconds(5));}
 */
final class Eventually {

    private static final long POLL_MILLIS = 10;

    private Eventually() {
    }

    /**
     * Polls {@code condition} until it holds; a condition that throws counts as not holding yet.
     *
     * @return how long it took
     * @throws AssertionError when it does not hold within {@code timeout}
     */
    static Duration until(String what, BooleanSupplier condition, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        RuntimeException lastFailure = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return Duration.ofNanos(System.nanoTime() - start);
                }
            }
            catch (RuntimeException ex) {
                lastFailure = ex;
            }
            if (System.nanoTime() - deadline > 0) {
                AssertionError error = new AssertionError("Not within " + timeout.toMillis() + " ms: " + what);
                if (lastFailure != null) {
                    error.initCause(lastFailure);
                }
                throw error;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for: " + what, ex);
            }
        }
    }
}
