package io.bloomguard.redis.engine;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One filter's life on this instance: it joins the shared filter (checks its access, reads the stored state, loads
 * it or follows the loader), then maintains it every refresh interval on the backend's thread (reads the stored
 * state, has the near copy follow it, reads the fill, delivers what it owes Redis, rebuilds it when it is gone or
 * stale), and at close makes the last attempt to deliver. It also says what the filter's {@link #status()} is, from
 * all of that.
 *
 * <p>Usage: {@code StartOutcome outcome = lifecycle.join(feed); ... lifecycle.maintain(); ... lifecycle.close(last);}
 */
final class RedisFilterLifecycle {

    private static final Log logger = LogFactory.getLog(RedisFilterLifecycle.class);

    /** A failure to reach Redis at startup this quick is tried once more: see {@link #verifyAccessAtStart()}. */
    private static final Duration FAST_FAILURE = Duration.ofMillis(500);

    private final String name;
    private final Duration refreshInterval;
    private final RedisAccessState access;
    private final RedisAccessCheck accessCheck;
    private final RedisFilterCommands commands;
    private final RedisStoredState state;
    /** {@code null} when the filter keeps no copy. */
    private final @Nullable RedisNearCopy nearCopy;
    private final RedisOutageBuffer outage;
    private final RedisFilterLoader loader;
    private final RedisFillEstimate fill;
    private final RedisLostAdds lost;
    private final ScheduledExecutorService scheduler;
    /** Has the recovery probe call {@link #maintain()} as soon as Redis answers again. */
    private final Runnable waitForRedis;
    private volatile @Nullable ScheduledFuture<?> maintenance;
    /** Set when the start could not reach Redis: until it has, the filter is {@code UNREACHABLE}. */
    private volatile boolean unreachableAtStart;

    RedisFilterLifecycle(String name, Duration refreshInterval, RedisAccessState access, RedisAccessCheck accessCheck,
            RedisFilterCommands commands, RedisStoredState state, @Nullable RedisNearCopy nearCopy,
            RedisOutageBuffer outage, RedisFilterLoader loader, RedisFillEstimate fill, RedisLostAdds lost,
            ScheduledExecutorService scheduler, Runnable waitForRedis) {
        this.name = name;
        this.refreshInterval = refreshInterval;
        this.access = access;
        this.accessCheck = accessCheck;
        this.commands = commands;
        this.state = state;
        this.nearCopy = nearCopy;
        this.outage = outage;
        this.loader = loader;
        this.fill = fill;
        this.lost = lost;
        this.scheduler = scheduler;
        this.waitForRedis = waitForRedis;
    }

    /** Joins the shared filter: with a key source this instance may load it, without one it only follows. */
    public StartOutcome join(@Nullable KeyFeed keys) {
        loader.join(keys);
        try {
            verifyAccessAtStart();
            state.refresh();
            // Now that it knows which bitmaps are live: one of another type would fail every check.
            accessCheck.verifyKeyTypes(commands.pastBreaker(), state.view());
            StartOutcome outcome = switch (state.view().status) {
                case READY -> StartOutcome.ALREADY_LOADED;
                case MISMATCHED -> StartOutcome.MISMATCHED;
                default -> (keys != null) ? loader.loadAtStart() : waitForALoader();
            };
            if (nearCopy != null) {
                nearCopy.follow(state.view()); // starts reading the copy now, not one refresh interval later
            }
            return outcome;
        }
        catch (RedisAccessDeniedException ex) {
            if (!ex.pinpointed()) {
                nameKeyOfWrongType(); // a WRONGTYPE a command met while loading: which key, before startup fails
            }
            return StartOutcome.ACCESS_DENIED; // logged, with what to fix, by the access state
        }
        catch (RedisUnavailableException ex) {
            access.failed(ex); // the outage this filter is in: its end is logged
            unreachableAtStart = true;
            logger.error("Filter '" + name + "' cannot reach Redis at startup (" + ex.getMessage() + rootCause(ex)
                    + "): it is"
                    + " UNREACHABLE, passes calls through, and holds the application's readiness at REFUSING_TRAFFIC"
                    + " until it has joined the shared filter; it keeps trying every " + refreshInterval
                    + ". Check that Redis (every node, for a cluster) is running and reachable from this host at"
                    + " spring.data.redis.host/port (or url, sentinel.nodes, cluster.nodes)");
            return StartOutcome.UNREACHABLE;
        }
        finally {
            scheduleMaintenance();
        }
    }

    /** What the client itself reported, when it is not already in the message: refused, timed out, a handshake error. */
    private static String rootCause(RedisUnavailableException ex) {
        Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
        return (root == ex || root.getMessage() == null || String.valueOf(ex.getMessage()).contains(root.getMessage()))
                ? "" : "; " + root;
    }

    private StartOutcome waitForALoader() {
        logger.warn("Filter '" + name + "' is not loaded in Redis, and this instance has no key source for it, so it"
                + " will not load it (it could only load it empty): calls pass through until an instance with a key"
                + " source has loaded it. If the filter is meant to start empty and be filled by puts alone, declare"
                + " a BloomKeySource for it that yields no keys");
        return StartOutcome.WAITING_FOR_A_LOADER;
    }

    private void scheduleMaintenance() {
        long every = refreshInterval.toMillis();
        try {
            maintenance = scheduler.scheduleWithFixedDelay(this::maintain, every, every, TimeUnit.MILLISECONDS);
        }
        catch (RejectedExecutionException ex) {
            // The backend was closed while this filter was starting (the application is shutting down).
            logger.debug("Filter '" + name + "': not scheduling maintenance, the backend is closed");
        }
    }

    /**
     * Reads the stored state, finds adds Redis acknowledged and lost, replays buffered and lost adds, and (re)builds
     * the filter when it is gone or stale.
     */
    public void maintain() {
        if (outage.closed()) {
            return;
        }
        try {
            if (access.unverified()) {
                verifyAccess(); // throws while Redis refuses a command
            }
            state.refresh();
            if (nearCopy != null) {
                nearCopy.follow(state.view());
            }
            fill.refreshIfDue();
            lost.check(); // before the delivery, which writes the lost adds again
            outage.deliver();
            loader.buildIfNeeded();
            lost.settled(status());
        }
        catch (RedisAccessDeniedException ex) {
            logger.debug("Filter '" + name + "': Redis still refuses access", ex);
        }
        catch (RedisUnavailableException ex) {
            if (!outage.owesNothing()) {
                waitForRedis.run();
            }
            logger.debug("Filter '" + name + "': Redis unavailable during maintenance", ex);
        }
        catch (RuntimeException ex) {
            logger.warn("Filter '" + name + "': maintenance failed", ex);
        }
    }

    /**
     * {@link #verifyAccess()}, once more when the first attempt failed at once without a refusal: under load, a
     * connection whose handshake Redis refused (a wrong password) has been seen to fail without Redis's answer among its
     * causes. The second attempt finds the refusal by name, so that the application does not start with it, or fails
     * again. A failure that took its time (a timeout: Redis not reachable) is not tried again here.
     */
    private void verifyAccessAtStart() {
        long start = System.nanoTime();
        try {
            verifyAccess();
        }
        catch (RedisAccessDeniedException ex) {
            throw ex;
        }
        catch (RedisUnavailableException ex) {
            if (System.nanoTime() - start > FAST_FAILURE.toNanos()) {
                throw ex;
            }
            logger.debug("Filter '" + name + "': first attempt to reach Redis failed at once; trying once more", ex);
            verifyAccess();
        }
    }

    /**
     * Runs the {@link RedisAccessCheck}; throws {@link RedisAccessDeniedException} while Redis refuses a command or
     * a key of the filter holds another type.
     */
    private void verifyAccess() {
        // Past the breaker, within one command timeout: a breaker opened by the refusals would hold the check back.
        accessCheck.verify(commands.pastBreaker(), state.view());
    }

    private void nameKeyOfWrongType() {
        try {
            accessCheck.verifyKeyTypes(commands.pastBreaker(), state.view());
        }
        catch (RedisUnavailableException ex) {
            // Found (the access state has it), or Redis did not answer: then the maintenance looks again.
            logger.debug("Filter '" + name + "': looked for the key of another type", ex);
        }
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#status()}. */
    public SharedFilterStatus status() {
        if (access.denied() != null) {
            return SharedFilterStatus.ACCESS_DENIED;
        }
        RedisFilterView view = state.view();
        if (unreachableAtStart && view == RedisFilterView.NOT_STARTED) {
            return SharedFilterStatus.UNREACHABLE;
        }
        if (view.status == SharedFilterStatus.READY && outage.incomplete()) {
            return SharedFilterStatus.STALE;
        }
        return view.status;
    }

    /**
     * Stops the maintenance, then makes the last attempt to deliver what the filter owes Redis, within
     * {@code lastAttempt}; closing again does nothing. See {@link io.bloomguard.redis.RedisBloomFilter#close()}.
     */
    public void close(RedisCommands lastAttempt) {
        if (!outage.close()) {
            return;
        }
        ScheduledFuture<?> task = maintenance;
        if (task != null) {
            task.cancel(false);
        }
        if (nearCopy != null) {
            nearCopy.close();
        }
        commands.within(lastAttempt, outage::deliverOwed);
    }
}
