package io.bloomguard.autoconfigure;

import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisBreakerSettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.time.Duration;

/** Turns {@code bloom-guard.redis.*} into the Redis backend's settings, refusing values it cannot run with. */
final class RedisSettingsResolver {

    private static final Log logger = LogFactory.getLog(RedisSettingsResolver.class);

    private RedisSettingsResolver() {
    }

    /** {@code bloom-guard.redis.*}, validated. */
    static RedisBackendSettings resolve(RedisBackendProperties redis) {
        String prefix = "bloom-guard.redis";
        if (redis.getKeyPrefix() == null || redis.getKeyPrefix().contains("{") || redis.getKeyPrefix().contains("}")) {
            throw new InvalidBloomGuardPropertyException(prefix + ".key-prefix", redis.getKeyPrefix(),
                    "a key prefix without '{' or '}' (bloom-guard adds its own hash tags), e.g. 'bloom-guard:'");
        }
        positive(prefix + ".check-timeout", redis.getCheckTimeout());
        positive(prefix + ".command-timeout", redis.getCommandTimeout());
        positive(prefix + ".breaker-window", redis.getBreakerWindow());
        positive(prefix + ".breaker-open-wait", redis.getBreakerOpenWait());
        positive(prefix + ".probe-interval", redis.getProbeInterval());
        positive(prefix + ".reconnect-delay", redis.getReconnectDelay());
        if (redis.getBreakerFailureRate() < 1 || redis.getBreakerFailureRate() > 100) {
            throw new InvalidBloomGuardPropertyException(prefix + ".breaker-failure-rate", redis.getBreakerFailureRate(),
                    "a percentage from 1 to 100, e.g. 50");
        }
        if (redis.getBreakerMinimumCalls() < 1) {
            throw new InvalidBloomGuardPropertyException(prefix + ".breaker-minimum-calls",
                    redis.getBreakerMinimumCalls(), "a number of calls, 1 or more, e.g. 10");
        }
        positive(prefix + ".lock-ttl", redis.getLockTtl());
        positive(prefix + ".refresh-interval", redis.getRefreshInterval());
        if (redis.getRebuildGrace() == null || redis.getRebuildGrace().isNegative()) {
            throw new InvalidBloomGuardPropertyException(prefix + ".rebuild-grace", redis.getRebuildGrace(),
                    "a duration of zero or more, e.g. 1s");
        }
        if (redis.getRebuildGrace().isZero()) {
            logger.warn("bloom-guard.redis.rebuild-grace is 0: a write whose key reaches a redis filter just before a"
                    + " rebuild begins, and whose transaction commits after the rebuild has read the key source, is"
                    + " missing from the rebuilt filter, which may reject it until the next rebuild; give it at least"
                    + " the longest transaction that puts a key (default 1s)");
        }
        if (redis.getPendingAddsLimit() < 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".pending-adds-limit", redis.getPendingAddsLimit(),
                    "a number of keys, zero or more");
        }
        if (redis.getReplayLogSize() < 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".replay-log-size", redis.getReplayLogSize(),
                    "a number of keys, zero or more (0 keeps no log: a loss is then repaired by a rebuild alone)");
        }
        positive(prefix + ".replay-log-age", redis.getReplayLogAge());
        waitForReplicas(redis);
        RedisBreakerSettings breaker = new RedisBreakerSettings(redis.getBreakerFailureRate(),
                redis.getBreakerMinimumCalls(), redis.getBreakerWindow(), redis.getBreakerOpenWait());
        return new RedisBackendSettings(redis.getKeyPrefix(), redis.getCheckTimeout(), redis.getCommandTimeout(),
                breaker, redis.getLockTtl(), redis.getRefreshInterval(), redis.getPendingAddsLimit(),
                redis.getRebuildGrace(), redis.getProbeInterval(), redis.getReconnectDelay(), redis.getReplayLogSize(),
                redis.getReplayLogAge(), redis.getWaitForReplicas(), redis.getWaitTimeout(), nearCopyLease(redis));
    }

    /** Whole milliseconds: the lease state stores it so, and every instance must agree on it. */
    private static Duration nearCopyLease(RedisBackendProperties redis) {
        Duration lease = redis.getNearCopyLease();
        if (lease.toMillis() < 1 || lease.compareTo(Duration.ofMinutes(1)) > 0 || lease.toNanos() % 1_000_000 != 0) {
            throw new InvalidBloomGuardPropertyException("bloom-guard.redis.near-copy-lease", lease,
                    "whole milliseconds from 1ms to 1m, e.g. 100ms: writers wait about that long before each commit"
                            + " while leases are on");
        }
        return lease;
    }

    private static void waitForReplicas(RedisBackendProperties redis) {
        String prefix = "bloom-guard.redis";
        if (redis.getWaitForReplicas() < 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".wait-for-replicas", redis.getWaitForReplicas(),
                    "a number of replicas, 0 (wait for none) or more, e.g. 1");
        }
        if (redis.getWaitForReplicas() == 0) {
            return;
        }
        Duration wait = redis.getWaitTimeout();
        if (wait == null || wait.toMillis() < 1) {
            // WAIT takes whole milliseconds, and reads 0 as "wait forever": a put would hang while a replica is down.
            throw new InvalidBloomGuardPropertyException(prefix + ".wait-timeout", wait, "a duration of 1ms or more while"
                    + " wait-for-replicas is " + redis.getWaitForReplicas() + ", e.g. 100ms (or set"
                    + " wait-for-replicas to 0)");
        }
        if (wait.compareTo(redis.getCommandTimeout()) >= 0) {
            throw new InvalidBloomGuardPropertyException(prefix + ".wait-timeout", wait, "a duration below"
                    + " bloom-guard.redis.command-timeout (" + redis.getCommandTimeout() + "), which bounds the wait"
                    + " for WAIT's reply, e.g. 100ms; or raise command-timeout");
        }
    }

    private static void positive(String property, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new InvalidBloomGuardPropertyException(property, value, "a positive duration, e.g. 50ms or 2s");
        }
    }
}
