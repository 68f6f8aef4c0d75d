package io.bloomguard.autoconfigure;

import java.time.Duration;

/**
 * {@code bloom-guard.redis.*}: the redis backend, one filter shared by every instance through the application's
 * RedisConnectionFactory. Checked by {@link RedisSettingsResolver#resolve} when the backend is created.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class RedisBackendProperties {

    /** Prefix of every key bloom-guard writes to Redis. */
    private String keyPrefix = "bloom-guard:";

    /**
     * Longest a guarded call waits for Redis to answer a check; then the filter's on-backend-failure policy
     * applies, and the failure counts towards opening the circuit breaker.
     */
    private Duration checkTimeout = Duration.ofMillis(50);

    /** Longest any other Redis command (adds, metadata, preload uploads) is waited for. */
    private Duration commandTimeout = Duration.ofSeconds(2);

    /**
     * Share of failed or timed-out Redis calls, in percent, over breaker-window, at or above which a circuit
     * breaker opens (checks and other commands have one each): calls then fail at once (and follow
     * on-backend-failure) instead of each waiting for the timeout.
     */
    private int breakerFailureRate = 50;

    /** Calls breaker-window must hold before their failure rate can open a circuit breaker. */
    private int breakerMinimumCalls = 10;

    /** How far back a circuit breaker counts calls and failures. */
    private Duration breakerWindow = Duration.ofSeconds(2);

    /** How long an open circuit breaker fails calls at once before it lets one trial call through. */
    private Duration breakerOpenWait = Duration.ofMillis(250);

    /**
     * How often, while adds wait for replay or a stale mark waits to be sent because Redis did not answer, one
     * probe command asks whether it does again, so that they are delivered at once when it does.
     */
    private Duration probeInterval = Duration.ofMillis(50);

    /**
     * Pause between attempts to open a new connection while the backend's own connection to Redis is down,
     * instead of the Redis client's reconnect back-off, which grows to many seconds.
     */
    private Duration reconnectDelay = Duration.ofMillis(100);

    /**
     * Expiry of the lock held by the instance that loads a filter. The loader renews it; if the loader dies,
     * another instance takes over after at most this long.
     */
    private Duration lockTtl = Duration.ofSeconds(30);

    /** How often each instance reads a filter's stored state (ready, generation, bitmap still there). */
    private Duration refreshInterval = Duration.ofSeconds(1);

    /**
     * Adds kept in memory for replay while Redis is unreachable. When more fail, the filter is marked stale in
     * Redis and rebuilt from its key source once Redis is back.
     */
    private int pendingAddsLimit = 100_000;

    /**
     * Keys of its latest adds each instance keeps, to write them again should Redis lose them after acknowledging
     * them (a failover to a replica that had not received them, a restart from an older RDB or AOF file).
     */
    private int replayLogSize = 100_000;

    /** How long an add stays in the replay log: a loss older than this is repaired by a rebuild alone. */
    private Duration replayLogAge = Duration.ofHours(1);

    /**
     * Pause between announcing a new generation (from then on every add reaches it) and reading the key
     * source, so that writes whose transactions were open before the announcement are in the source or in
     * the new generation. Longer transactions than this may lose their key across a rebuild.
     */
    private Duration rebuildGrace = Duration.ofSeconds(1);

    /**
     * Replicas each batch of adds waits for (Redis's WAIT) once the primary has taken it, so that a failover is
     * less likely to lose it; 0 (the default) waits for none. Lettuce on a Redis server (not a cluster) only.
     */
    private int waitForReplicas = 0;

    /**
     * Longest a batch of adds waits for wait-for-replicas replicas; then it fails (on-add-failure: fail) or stands
     * on the primary alone (buffer). Meanwhile the backend's connection answers nothing else, checks included.
     */
    private Duration waitTimeout = Duration.ofMillis(100);

    /**
     * With redis.near-copy: leased, how long a lease lets a near copy answer absent keys with no command to Redis.
     * While leases are on (a flood of absent keys), every put waits about this long (plus 2%) before its transaction
     * commits. Same value on every instance.
     */
    private Duration nearCopyLease = Duration.ofMillis(100);

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getCheckTimeout() {
        return checkTimeout;
    }

    public void setCheckTimeout(Duration checkTimeout) {
        this.checkTimeout = checkTimeout;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public int getBreakerFailureRate() {
        return breakerFailureRate;
    }

    public void setBreakerFailureRate(int breakerFailureRate) {
        this.breakerFailureRate = breakerFailureRate;
    }

    public int getBreakerMinimumCalls() {
        return breakerMinimumCalls;
    }

    public void setBreakerMinimumCalls(int breakerMinimumCalls) {
        this.breakerMinimumCalls = breakerMinimumCalls;
    }

    public Duration getBreakerWindow() {
        return breakerWindow;
    }

    public void setBreakerWindow(Duration breakerWindow) {
        this.breakerWindow = breakerWindow;
    }

    public Duration getBreakerOpenWait() {
        return breakerOpenWait;
    }

    public void setBreakerOpenWait(Duration breakerOpenWait) {
        this.breakerOpenWait = breakerOpenWait;
    }

    public Duration getProbeInterval() {
        return probeInterval;
    }

    public void setProbeInterval(Duration probeInterval) {
        this.probeInterval = probeInterval;
    }

    public Duration getReconnectDelay() {
        return reconnectDelay;
    }

    public void setReconnectDelay(Duration reconnectDelay) {
        this.reconnectDelay = reconnectDelay;
    }

    public Duration getLockTtl() {
        return lockTtl;
    }

    public void setLockTtl(Duration lockTtl) {
        this.lockTtl = lockTtl;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }

    public int getPendingAddsLimit() {
        return pendingAddsLimit;
    }

    public void setPendingAddsLimit(int pendingAddsLimit) {
        this.pendingAddsLimit = pendingAddsLimit;
    }

    public int getReplayLogSize() {
        return replayLogSize;
    }

    public void setReplayLogSize(int replayLogSize) {
        this.replayLogSize = replayLogSize;
    }

    public Duration getReplayLogAge() {
        return replayLogAge;
    }

    public void setReplayLogAge(Duration replayLogAge) {
        this.replayLogAge = replayLogAge;
    }

    public int getWaitForReplicas() {
        return waitForReplicas;
    }

    public void setWaitForReplicas(int waitForReplicas) {
        this.waitForReplicas = waitForReplicas;
    }

    public Duration getNearCopyLease() {
        return nearCopyLease;
    }

    public void setNearCopyLease(Duration nearCopyLease) {
        this.nearCopyLease = nearCopyLease;
    }

    public Duration getWaitTimeout() {
        return waitTimeout;
    }

    public void setWaitTimeout(Duration waitTimeout) {
        this.waitTimeout = waitTimeout;
    }

    public Duration getRebuildGrace() {
        return rebuildGrace;
    }

    public void setRebuildGrace(Duration rebuildGrace) {
        this.rebuildGrace = rebuildGrace;
    }
}
