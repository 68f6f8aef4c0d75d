package io.bloomguard.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops calling Redis for a while after a call failed or timed out, so that a dead or hung server costs at
 * most one timeout per window instead of one per request. After the window one call (a trial) goes through;
 * its success closes the breaker, its failure opens it for another window.
 */
final class CircuitBreaker {

    private static final long CLOSED = Long.MIN_VALUE;

    private final long openNanos;
    private final AtomicLong openedAt = new AtomicLong(CLOSED);
    private final AtomicBoolean trialRunning = new AtomicBoolean();

    CircuitBreaker(Duration openFor) {
        this.openNanos = openFor.toNanos();
    }

    /** Whether a call may go to Redis now. */
    boolean tryAcquire() {
        long opened = openedAt.get();
        if (opened == CLOSED) {
            return true;
        }
        if (System.nanoTime() - opened < openNanos) {
            return false;
        }
        return trialRunning.compareAndSet(false, true);
    }

    void onSuccess() {
        if (openedAt.get() != CLOSED) {
            openedAt.set(CLOSED);
            trialRunning.set(false);
        }
    }

    void onFailure() {
        openedAt.set(System.nanoTime());
        trialRunning.set(false);
    }

    boolean isOpen() {
        return openedAt.get() != CLOSED;
    }
}
