package io.bloomguard.redis.engine;

import java.time.Duration;

/**
 * When a filter may be built again after builds that failed in a row, so that a key source that always fails is not
 * read again and again at every refresh: the load lock's TTL after the first failure, doubled with each further one,
 * up to 10 minutes. A build that succeeds starts the count again.
 *
 * <p>Usage: {@code if (backoff.due()) { ... backoff.failed(); ... }}
 */
final class BuildBackoff {

    private static final Duration MAX_PAUSE = Duration.ofMinutes(10);

    private final Duration firstPause;
    private volatile long nextAttempt = System.nanoTime();
    /** Builds that failed in a row: each doubles the pause before the next attempt. */
    private volatile int failedInARow;

    BuildBackoff(Duration firstPause) {
        this.firstPause = firstPause;
    }

    /** Whether no build failed, or the pause after the last one that did is over. */
    boolean due() {
        return System.nanoTime() - nextAttempt >= 0;
    }

    void succeeded() {
        failedInARow = 0;
    }

    void failed() {
        failedInARow++;
        nextAttempt = System.nanoTime() + pause().toNanos();
    }

    /** The pause after the failures in a row so far. */
    Duration pause() {
        Duration pause = firstPause.multipliedBy(1L << Math.min(Math.max(failedInARow - 1, 0), 5));
        return pause.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause;
    }
}
