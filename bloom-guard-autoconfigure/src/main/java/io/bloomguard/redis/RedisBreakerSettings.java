package io.bloomguard.redis;

import java.time.Duration;

/**
 * When the backend's circuit breakers open and how soon they try again ({@code bloom-guard.redis.breaker-*}).
 * A breaker opens when, over the last {@code window}, at least {@code minimumCalls} calls were made and at least
 * {@code failureRatePercent} percent of them failed or timed out; while open, calls fail at once but for one trial
 * call every {@code openWait}, and the first success closes it. It also opens when no call in the window succeeded
 * and more than one failed, which the minimum would not catch at little traffic against a dead server.
 *
 * <p>Usage: {@code new RedisBreakerSettings(50, 10, Duration.ofSeconds(2), Duration.ofMillis(250))}
 *
 * @param failureRatePercent share of failed calls, in percent, at or above which a breaker opens (1 to 100)
 * @param minimumCalls       calls the window must hold before the rate counts: fewer never open it (1 or more)
 * @param window             how far back calls are counted
 * @param openWait           how long a breaker stays open before a trial call, and between trials
 *
 * @since 0.1.0
 */
public record RedisBreakerSettings(int failureRatePercent, int minimumCalls, Duration window, Duration openWait) {

    public RedisBreakerSettings {
        if (failureRatePercent < 1 || failureRatePercent > 100) {
            throw new IllegalArgumentException("failureRatePercent must be 1 to 100: " + failureRatePercent);
        }
        if (minimumCalls < 1) {
            throw new IllegalArgumentException("minimumCalls must be at least 1: " + minimumCalls);
        }
        if (window.isNegative() || window.isZero() || openWait.isNegative() || openWait.isZero()) {
            throw new IllegalArgumentException("window and openWait must be positive: " + window + ", " + openWait);
        }
    }

    /** The defaults: 50 % of at least 10 calls in the last 2 s; a trial every 250 ms. */
    public static RedisBreakerSettings defaults() {
        return new RedisBreakerSettings(50, 10, Duration.ofSeconds(2), Duration.ofMillis(250));
    }

    /** These settings with another open wait. */
    public RedisBreakerSettings withOpenWait(Duration wait) {
        return new RedisBreakerSettings(failureRatePercent, minimumCalls, window, wait);
    }
}
