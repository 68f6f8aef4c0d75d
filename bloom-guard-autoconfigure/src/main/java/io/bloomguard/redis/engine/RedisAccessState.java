package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisAcl;
import io.bloomguard.redis.port.RedisDenial;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one filter knows of reaching Redis: answering, in an outage (since when, how many calls failed), or refused
 * ({@link RedisAccessDeniedException}). It sees the outcome of every command the filter sends, and logs each episode
 * once, whatever the number of calls it spans: an outage's start at WARN, a refusal at ERROR with what to fix (it
 * does not pass by itself), and the end of either at INFO.
 *
 * <p>Usage: {@code RedisCommands mine = commands.reportingTo(access); ... if (access.denied() != null) ...}
 */
final class RedisAccessState implements RedisCommands.Outcomes {

    private static final Log logger = LogFactory.getLog(RedisAccessState.class);

    private final String filter;
    private final RedisAcl acl;
    private final AtomicReference<@Nullable Outage> outage = new AtomicReference<>();
    private final AtomicReference<@Nullable RedisAccessDeniedException> denied = new AtomicReference<>();
    /** Whether Redis has answered this filter yet: a failure before that is the startup's to report. */
    private volatile boolean everAnswered;
    /** Whether the access check has passed since the filter was created or last refused. */
    private volatile boolean verified;

    public RedisAccessState(String filter, RedisAcl acl) {
        this.filter = filter;
        this.acl = acl;
    }

    /** The refusal this filter is under, or {@code null}. */
    public @Nullable RedisAccessDeniedException denied() {
        return denied.get();
    }

    /** Whether the access check is still to pass: not run yet (Redis was unreachable), or a refusal since. */
    public boolean unverified() {
        return !verified;
    }

    /** Whether Redis answers this filter's commands: no outage, no refusal. */
    public boolean answering() {
        return outage.get() == null && denied.get() == null;
    }

    /** The refusal, with what to change, or the outage, with its first failure; {@code null} when Redis answers. */
    public @Nullable String reason() {
        RedisAccessDeniedException refusal = denied.get();
        if (refusal != null) {
            return refusal.getMessage() + ". " + refusal.action();
        }
        Outage current = outage.get();
        return (current != null) ? "Redis unavailable since " + current.since + ": " + current.firstFailure : null;
    }

    @Override
    public void answered() {
        if (!everAnswered) { // read, not written, on every reply: this is on the path of every check
            everAnswered = true;
        }
        Outage ended = outage.get();
        if (ended != null && outage.compareAndSet(ended, null)) {
            logger.info("Filter '" + filter + "': Redis answers again, after "
                    + Duration.between(ended.since, java.time.Instant.now()).toMillis() + " ms in which "
                    + ended.failures.sum() + " of its calls failed");
        }
    }

    @Override
    public RedisUnavailableException failed(RedisUnavailableException failure) {
        if (failure instanceof RedisAccessDeniedException refusal) {
            return deny(refusal);
        }
        RedisDenial denial = RedisDenial.of(failure);
        if (denial != null) {
            return deny(new RedisAccessDeniedException(filter, List.of(denial), acl));
        }
        Outage current = outage.get();
        if (current == null) {
            Outage started = new Outage(failure.getMessage());
            if (outage.compareAndSet(null, started)) {
                current = started;
                if (everAnswered) { // before that, the startup reports it, with what to check
                    logger.warn("Filter '" + filter + "': Redis is unavailable (" + failure.getMessage() + "); until"
                            + " it answers, guarded calls follow on-backend-failure, adds are kept for replay, and the"
                            + " filter does not reject on this instance. Logged once per outage");
                }
            }
            else {
                current = outage.get();
            }
        }
        if (current != null) {
            current.failures.increment();
        }
        return failure;
    }

    /** Records refusals found by the access check: the filter is refused until a check finds none. */
    public RedisAccessDeniedException denied(List<RedisDenial> denials) {
        return deny(new RedisAccessDeniedException(filter, denials, acl));
    }

    /** The access check found every command allowed: a refusal, if there was one, is over. */
    void accessVerified() {
        verified = true;
        RedisAccessDeniedException ended = denied.getAndSet(null);
        if (ended != null && ended.pinpointed()) {
            logger.info("Filter '" + filter + "': " + (ended.code().equals(RedisDenial.WRONG_TYPE)
                    ? "its keys in Redis hold what bloom-guard writes there again"
                    : "Redis now allows every command bloom-guard needs") + "; the filter rejoins the shared filter"
                    + " and is trusted again once it is ready");
        }
        answered();
    }

    private RedisAccessDeniedException deny(RedisAccessDeniedException refusal) {
        verified = false;
        RedisAccessDeniedException previous;
        do {
            previous = denied.get();
            if (previous != null && previous.pinpointed() && !refusal.pinpointed()) {
                return previous; // a WRONGTYPE answered to a command says less than what is known already
            }
        } while (!denied.compareAndSet(previous, refusal));
        // A WRONGTYPE answered to a command does not say which key: it is logged once the next verification, at the
        // next refresh, has found it.
        if ((previous == null || !previous.pinpointed()) && refusal.pinpointed()) {
            logger.error(refusal.getMessage() + ". Until this is fixed the filter is ACCESS_DENIED: guarded calls pass"
                    + " through, its adds fail, and the application's readiness is REFUSING_TRAFFIC. "
                    + refusal.action());
        }
        return refusal;
    }

    /** One outage: when it began and how many calls failed in it. */
    private static final class Outage {

        final java.time.Instant since = java.time.Instant.now();
        final String firstFailure;
        final LongAdder failures = new LongAdder();

        Outage(@Nullable String firstFailure) {
            this.firstFailure = String.valueOf(firstFailure);
        }
    }
}
