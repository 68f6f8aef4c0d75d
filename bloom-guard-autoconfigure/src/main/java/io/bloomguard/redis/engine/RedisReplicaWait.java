package io.bloomguard.redis.engine;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * With {@code bloom-guard.redis.wait-for-replicas}, has a batch of adds the primary acknowledged wait ({@code WAIT})
 * until that many replicas have it too, so that a failover is less likely to lose it. When fewer confirm within
 * the wait timeout (or the {@code WAIT} itself fails), the batch is unconfirmed: counted, logged once per episode,
 * and under {@code on-add-failure: fail} the put fails; under {@code buffer} it stands, on the primary alone.
 *
 * <p>Usage: {@code replicaWait.afterAdds();} once a batch's add replies are in, on the thread that sent them.
 */
final class RedisReplicaWait {

    private static final Log logger = LogFactory.getLog(RedisReplicaWait.class);

    private final String name;
    private final int replicas;
    private final Duration timeout;
    private final AddFailurePolicy onAddFailure;
    private final RedisFilterCommands commands;
    private final AtomicLong unconfirmed = new AtomicLong();
    /** Set from the first unconfirmed batch until one is confirmed again: one WARN for the whole episode. */
    private final AtomicBoolean episode = new AtomicBoolean();

    RedisReplicaWait(String name, int replicas, Duration timeout, AddFailurePolicy onAddFailure,
            RedisFilterCommands commands) {
        this.name = name;
        this.replicas = replicas;
        this.timeout = timeout;
        this.onAddFailure = onAddFailure;
        this.commands = commands;
    }

    /** Whether it waits at all: {@code wait-for-replicas} above 0. */
    boolean waits() {
        return replicas > 0;
    }

    /**
     * Waits for the replicas to have the adds this connection sent so far.
     *
     * @throws RedisUnavailableException under {@code on-add-failure: fail} when fewer replicas confirmed them
     */
    void afterAdds() {
        if (replicas <= 0) {
            return;
        }
        String shortfall;
        try {
            long confirmed = commands.call(port -> port.waitForReplicas(replicas, timeout));
            if (confirmed >= replicas) {
                if (episode.compareAndSet(true, false)) {
                    logger.info("Filter '" + name + "': " + replicas + " replica(s) confirm its adds again");
                }
                return;
            }
            shortfall = confirmed + " of " + replicas + " replica(s) confirmed the adds within " + timeout;
        }
        catch (RedisUnavailableException ex) {
            if (onAddFailure == AddFailurePolicy.FAIL) {
                unconfirmed.incrementAndGet();
                throw ex;
            }
            shortfall = "WAIT for " + replicas + " replica(s) failed (" + ex.getMessage() + ")";
        }
        unconfirmed.incrementAndGet();
        if (onAddFailure == AddFailurePolicy.FAIL) {
            throw new RedisUnavailableException("the replicas did not confirm the adds: " + shortfall
                    + " (bloom-guard.redis.wait-for-replicas); the primary has them, but a failover now could lose"
                    + " them");
        }
        if (episode.compareAndSet(false, true)) {
            logger.warn("Filter '" + name + "': " + shortfall + " (bloom-guard.redis.wait-for-replicas); the adds"
                    + " stand on the primary alone (on-add-failure: buffer), and a failover now could lose them."
                    + " Logged once until replicas confirm again; bloomguard.redis.replicas.unconfirmed counts"
                    + " each batch");
        }
    }

    /**
     * {@code port}, unless it cannot send {@code WAIT} (its {@link RedisPort#waitForReplicas} fails at once, as the
     * default does): then it is closed and the connection refused with what to change, rather than every put
     * waiting for nothing. A port that supports it is asked {@code WAIT 0 1}, answered at once.
     */
    static RedisPort refuseUnlessSupported(RedisPort port, int replicas) {
        Throwable refusal = port.waitForReplicas(0, Duration.ofMillis(1)).handle((answer, failure) -> failure)
                .getNow(null);
        Throwable cause = (refusal instanceof CompletionException) ? refusal.getCause() : refusal;
        if (cause instanceof UnsupportedOperationException) {
            port.close();
            throw new IllegalStateException("bloom-guard.redis.wait-for-replicas is " + replicas + ", but this"
                    + " connection cannot wait for replicas: " + cause.getMessage(), cause);
        }
        return port;
    }

    /** Batches of adds fewer replicas confirmed than {@code wait-for-replicas}, since this instance started. */
    long unconfirmed() {
        return unconfirmed.get();
    }
}
