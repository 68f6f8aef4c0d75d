package io.bloomguard.redis.engine;

import java.time.Duration;

/**
 * What the engine reads of {@code bloom-guard.redis.*}: the backend's settings as validated and mapped by
 * {@link io.bloomguard.redis.RedisFilterBackend}, so that the engine depends on none of the API's types. See
 * {@link io.bloomguard.redis.RedisBackendSettings} for what each means.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public record EngineSettings(String keyPrefix, Duration checkTimeout, Duration commandTimeout, Breaker breaker,
        Duration lockTtl, Duration refreshInterval, int pendingAddsLimit, Duration rebuildGrace,
        Duration probeInterval, Duration reconnectDelay, int replayLogSize, Duration replayLogAge,
        int waitForReplicas, Duration waitTimeout, Duration nearCopyLease) {

    /**
     * Longest the last attempt of a closing instance takes, for all its filters together: three command timeouts,
     * one for each step of the slowest path (a read of the stored state, the adds, a stale mark for what failed).
     */
    public Duration lastAttemptTimeout() {
        return commandTimeout.multipliedBy(3);
    }

    /** When a circuit breaker opens and retries: see {@link io.bloomguard.redis.RedisBreakerSettings}. */
    public record Breaker(int failureRatePercent, int minimumCalls, Duration window, Duration openWait) {
    }
}
