package io.bloomguard.redis;

import java.time.Duration;

/**
 * Settings shared by every Redis filter of an application ({@code bloom-guard.redis.*}).
 *
 * @param keyPrefix         prefix of every key the backend writes
 * @param checkTimeout      longest a guarded call waits for a check before the failure policy applies
 * @param commandTimeout    longest any other command (adds, metadata, uploads) is waited for
 * @param breaker           when the circuit breakers (one for checks, one for other commands) open and retry
 * @param lockTtl           expiry of the load lock; the loader renews it, so it only matters when the loader dies
 * @param refreshInterval   how often each instance reads the stored state (readiness, generation, lost bitmaps)
 * @param pendingAddsLimit  adds kept for replay while Redis is unreachable; beyond it the filter is rebuilt
 * @param rebuildGrace      pause between announcing a new generation and reading the key source, so that writes
 *                          whose transactions were already open reach the new generation or the source
 * @param probeInterval     how often, while adds or a stale mark wait for Redis to answer, it is asked whether it
 *                          does, so that they are delivered at once rather than at the next refresh
 * @param reconnectDelay    pause between attempts to open a new connection while the backend's own is down
 * @param replayLogSize     keys of its latest adds each instance keeps to write again should Redis lose them (a
 *                          failover, a restore from an older file)
 * @param replayLogAge      how long an add stays in that log
 * @param waitForReplicas   replicas each batch of adds waits for ({@code WAIT}) once the primary has taken it; 0
 *                          (the default) waits for none. Needs a port that supports
 *                          {@link io.bloomguard.redis.port.RedisPort#waitForReplicas}
 * @param waitTimeout       longest that wait lasts; below {@code commandTimeout}
 * @param nearCopyLease     with {@code redis.near-copy: leased}, how long a lease lets a near copy answer absent keys
 *                          with no command; writers wait about as long before their commit while leases are on
 *
 * @since 0.1.0
 */
public record RedisBackendSettings(String keyPrefix, Duration checkTimeout, Duration commandTimeout,
        RedisBreakerSettings breaker, Duration lockTtl, Duration refreshInterval, int pendingAddsLimit,
        Duration rebuildGrace, Duration probeInterval, Duration reconnectDelay, int replayLogSize,
        Duration replayLogAge, int waitForReplicas, Duration waitTimeout, Duration nearCopyLease) {

    /** The default of {@code bloom-guard.redis.near-copy-lease}. */
    public static final Duration DEFAULT_NEAR_COPY_LEASE = Duration.ofMillis(100);

    /** The default of {@code bloom-guard.redis.wait-timeout}. */
    public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofMillis(100);

    /** The default of {@code bloom-guard.redis.replay-log-size}. */
    public static final int DEFAULT_REPLAY_LOG_SIZE = 100_000;

    /** The default of {@code bloom-guard.redis.replay-log-age}. */
    public static final Duration DEFAULT_REPLAY_LOG_AGE = Duration.ofHours(1);

    /** Settings with the default near copy lease. */
    public RedisBackendSettings(String keyPrefix, Duration checkTimeout, Duration commandTimeout,
            RedisBreakerSettings breaker, Duration lockTtl, Duration refreshInterval, int pendingAddsLimit,
            Duration rebuildGrace, Duration probeInterval, Duration reconnectDelay, int replayLogSize,
            Duration replayLogAge, int waitForReplicas, Duration waitTimeout) {
        this(keyPrefix, checkTimeout, commandTimeout, breaker, lockTtl, refreshInterval, pendingAddsLimit,
                rebuildGrace, probeInterval, reconnectDelay, replayLogSize, replayLogAge, waitForReplicas, waitTimeout,
                DEFAULT_NEAR_COPY_LEASE);
    }

    /** Settings with the default replay log that wait for no replica. */
    public RedisBackendSettings(String keyPrefix, Duration checkTimeout, Duration commandTimeout,
            RedisBreakerSettings breaker, Duration lockTtl, Duration refreshInterval, int pendingAddsLimit,
            Duration rebuildGrace, Duration probeInterval, Duration reconnectDelay) {
        this(keyPrefix, checkTimeout, commandTimeout, breaker, lockTtl, refreshInterval, pendingAddsLimit,
                rebuildGrace, probeInterval, reconnectDelay, DEFAULT_REPLAY_LOG_SIZE, DEFAULT_REPLAY_LOG_AGE, 0,
                DEFAULT_WAIT_TIMEOUT);
    }

    /**
     * Longest the last attempt of a closing instance takes, for all its filters together: three command timeouts,
     * one for each step of the slowest path (a read of the stored state, the adds, a stale mark for what failed).
     */
    public Duration lastAttemptTimeout() {
        return commandTimeout.multipliedBy(3);
    }

    /** The defaults of {@code bloom-guard.redis.*}. */
    public static RedisBackendSettings defaults() {
        return new RedisBackendSettings("bloom-guard:", Duration.ofMillis(50), Duration.ofSeconds(2),
                RedisBreakerSettings.defaults(), Duration.ofSeconds(30), Duration.ofSeconds(1), 100_000,
                Duration.ofSeconds(1), Duration.ofMillis(50), Duration.ofMillis(100), DEFAULT_REPLAY_LOG_SIZE,
                DEFAULT_REPLAY_LOG_AGE, 0, DEFAULT_WAIT_TIMEOUT, DEFAULT_NEAR_COPY_LEASE);
    }
}
