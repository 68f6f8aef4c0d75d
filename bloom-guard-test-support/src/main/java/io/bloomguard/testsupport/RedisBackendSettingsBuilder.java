package io.bloomguard.testsupport;

import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisBreakerSettings;

import java.time.Duration;

/**
 * {@link RedisBackendSettings} made from others with a few settings changed, so that a test names only the settings
 * it is about instead of repeating all twelve.
 *
 * <p>Usage: {@code RedisBackendSettingsBuilder.from(FAST).refreshInterval(Duration.ofHours(1)).build()}.
 */
public final class RedisBackendSettingsBuilder {

    private String keyPrefix;

    private Duration checkTimeout;

    private Duration commandTimeout;

    private RedisBreakerSettings breaker;

    private Duration lockTtl;

    private Duration refreshInterval;

    private int pendingAddsLimit;

    private Duration rebuildGrace;

    private Duration probeInterval;

    private Duration reconnectDelay;

    private int replayLogSize;

    private Duration replayLogAge;
    private int waitForReplicas;

    private Duration waitTimeout;

    private Duration nearCopyLease;

    private RedisBackendSettingsBuilder(RedisBackendSettings base) {
        this.keyPrefix = base.keyPrefix();
        this.checkTimeout = base.checkTimeout();
        this.commandTimeout = base.commandTimeout();
        this.breaker = base.breaker();
        this.lockTtl = base.lockTtl();
        this.refreshInterval = base.refreshInterval();
        this.pendingAddsLimit = base.pendingAddsLimit();
        this.rebuildGrace = base.rebuildGrace();
        this.probeInterval = base.probeInterval();
        this.reconnectDelay = base.reconnectDelay();
        this.replayLogSize = base.replayLogSize();
        this.replayLogAge = base.replayLogAge();
        this.waitForReplicas = base.waitForReplicas();
        this.waitTimeout = base.waitTimeout();
        this.nearCopyLease = base.nearCopyLease();
    }

    /** A builder that starts from {@code base}. */
    public static RedisBackendSettingsBuilder from(RedisBackendSettings base) {
        return new RedisBackendSettingsBuilder(base);
    }

    public RedisBackendSettingsBuilder keyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        return this;
    }

    public RedisBackendSettingsBuilder checkTimeout(Duration checkTimeout) {
        this.checkTimeout = checkTimeout;
        return this;
    }

    public RedisBackendSettingsBuilder commandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
        return this;
    }

    public RedisBackendSettingsBuilder breaker(RedisBreakerSettings breaker) {
        this.breaker = breaker;
        return this;
    }

    /** The breakers' open wait, keeping the rest of their settings. */
    public RedisBackendSettingsBuilder breakerOpenWait(Duration openWait) {
        this.breaker = this.breaker.withOpenWait(openWait);
        return this;
    }

    public RedisBackendSettingsBuilder lockTtl(Duration lockTtl) {
        this.lockTtl = lockTtl;
        return this;
    }

    public RedisBackendSettingsBuilder refreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
        return this;
    }

    public RedisBackendSettingsBuilder pendingAddsLimit(int pendingAddsLimit) {
        this.pendingAddsLimit = pendingAddsLimit;
        return this;
    }

    public RedisBackendSettingsBuilder rebuildGrace(Duration rebuildGrace) {
        this.rebuildGrace = rebuildGrace;
        return this;
    }

    public RedisBackendSettingsBuilder probeInterval(Duration probeInterval) {
        this.probeInterval = probeInterval;
        return this;
    }

    public RedisBackendSettingsBuilder reconnectDelay(Duration reconnectDelay) {
        this.reconnectDelay = reconnectDelay;
        return this;
    }

    public RedisBackendSettingsBuilder replayLogSize(int replayLogSize) {
        this.replayLogSize = replayLogSize;
        return this;
    }

    public RedisBackendSettingsBuilder replayLogAge(Duration replayLogAge) {
        this.replayLogAge = replayLogAge;
        return this;
    }

    /** Replicas each batch of adds waits for ({@code WAIT}), within {@code timeout}. */
    public RedisBackendSettingsBuilder waitForReplicas(int replicas, Duration timeout) {
        this.waitForReplicas = replicas;
        this.waitTimeout = timeout;
        return this;
    }

    /** How long a leased near copy's lease holds ({@code redis.near-copy: leased}). */
    public RedisBackendSettingsBuilder nearCopyLease(Duration nearCopyLease) {
        this.nearCopyLease = nearCopyLease;
        return this;
    }

    /** The settings as built so far. */
    public RedisBackendSettings build() {
        return new RedisBackendSettings(this.keyPrefix, this.checkTimeout, this.commandTimeout, this.breaker,
                this.lockTtl, this.refreshInterval, this.pendingAddsLimit, this.rebuildGrace, this.probeInterval,
                this.reconnectDelay, this.replayLogSize, this.replayLogAge, this.waitForReplicas, this.waitTimeout,
                this.nearCopyLease);
    }

}
