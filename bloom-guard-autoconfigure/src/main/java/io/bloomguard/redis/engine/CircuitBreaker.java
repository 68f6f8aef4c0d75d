package io.bloomguard.redis.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Stops calling Redis while it fails most calls, so that a dead or hung server does not add a timeout to every
 * request. It opens when, over the last {@link EngineSettings.Breaker#window()}, at least {@link EngineSettings.Breaker#minimumCalls()} calls
 * were made and at least {@link EngineSettings.Breaker#failureRatePercent()} percent of them failed or timed out, or
 * when none of them succeeded and more than one failed: one slow call (a GC pause, a slow moment of the network)
 * never opens it, and several only when they are a large share of the traffic. The second rule is for little
 * traffic against a dead server: each call then waits for its timeout, and the minimum would never be reached
 * within the window. While open, calls fail at
 * once, except one trial call at a time, the first after {@link EngineSettings.Breaker#openWait()} and each next one
 * an open wait after the last failed (or after its timeout, if it never reports); the first call that succeeds (a trial, or a
 * {@linkplain RecoveryProbe probe} sent past the breaker) closes it and starts the window afresh.
 *
 * <p>Usage: {@code if (breaker.tryAcquire()) { try { call(); breaker.onSuccess(); } catch (...) { breaker.onFailure(); } }}
 */
final class CircuitBreaker {

    private static final Log logger = LogFactory.getLog(CircuitBreaker.class);

    /** The window is counted in this many buckets, each a tenth of it: it slides a bucket at a time. */
    private static final int BUCKETS = 10;

    /** {@link #nextTrial} while the breaker is closed. */
    private static final long CLOSED = Long.MIN_VALUE;

    private final String name;
    private final EngineSettings.Breaker settings;
    private final LongSupplier nanoClock;
    private final long bucketNanos;
    private final long openWaitNanos;
    /** How long a trial that has not reported holds back the next one: its timeout, and an open wait more. */
    private final long trialExpiryNanos;
    /** {@code nanoTime} at which the trial in flight went, or {@link #CLOSED} when none is. */
    private final AtomicLong trialSentAt = new AtomicLong(CLOSED);
    private final AtomicReferenceArray<Bucket> buckets = new AtomicReferenceArray<>(BUCKETS);
    /** {@link #CLOSED}, or the {@code nanoTime} from which the next trial call may go. */
    private final AtomicLong nextTrial = new AtomicLong(CLOSED);

    /**
     * @param name        what the breaker guards, for the log: "checks", "adds and other commands"
     * @param callTimeout the longest its calls wait for Redis
     */
    public CircuitBreaker(String name, EngineSettings.Breaker settings, Duration callTimeout) {
        this(name, settings, callTimeout, System::nanoTime);
    }

    CircuitBreaker(String name, EngineSettings.Breaker settings, Duration callTimeout, LongSupplier nanoClock) {
        this.name = name;
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.bucketNanos = Math.max(1, settings.window().toNanos() / BUCKETS);
        this.openWaitNanos = settings.openWait().toNanos();
        this.trialExpiryNanos = callTimeout.toNanos() + openWaitNanos;
    }

    /**
     * Whether a call may go to Redis now: always while closed; while open, only as the one trial call, once the
     * open wait is over and no other trial is out (one that has not reported within its timeout and an open wait
     * no longer counts).
     */
    boolean tryAcquire() {
        if (nextTrial.get() == CLOSED) {
            return true;
        }
        long now = nanoClock.getAsLong();
        long next = nextTrial.get();
        if (next == CLOSED) {
            return true;
        }
        if (now - next < 0) {
            return false;
        }
        long sent = trialSentAt.get();
        if (sent != CLOSED && now - sent < trialExpiryNanos) {
            return false;
        }
        return trialSentAt.compareAndSet(sent, notClosed(now));
    }

    /** Redis answered a call: counted, and an open breaker closes (Redis answers again). */
    void onSuccess() {
        long now = nanoClock.getAsLong();
        if (nextTrial.get() != CLOSED) {
            close(); // and the window starts afresh, with this success
        }
        record(now, false);
    }

    /** A call failed or timed out: counted, and the breaker opens if the failure rate is reached. */
    void onFailure() {
        long now = nanoClock.getAsLong();
        if (nextTrial.get() != CLOSED) {
            if (trialSentAt.getAndSet(CLOSED) != CLOSED) {
                nextTrial.set(notClosed(now + openWaitNanos)); // the trial failed: the next one an open wait on
            }
            return;
        }
        record(now, true);
        long calls = 0;
        long failures = 0;
        long current = Math.floorDiv(now, bucketNanos);
        for (int slot = 0; slot < BUCKETS; slot++) {
            Bucket bucket = buckets.get(slot);
            if (bucket != null && current - bucket.index < BUCKETS) {
                calls += bucket.calls.sum();
                failures += bucket.failures.sum();
            }
        }
        boolean rateReached = calls >= settings.minimumCalls()
                && failures * 100 >= (long) settings.failureRatePercent() * calls;
        boolean nothingAnswers = failures > 1 && failures == calls;
        if ((rateReached || nothingAnswers) && nextTrial.compareAndSet(CLOSED, notClosed(now + openWaitNanos))) {
            trialSentAt.set(CLOSED);
            logger.warn("Redis circuit breaker for " + name + " opened: " + failures + " of " + calls + " calls failed"
                    + " in the last " + settings.window().toMillis() + " ms; they fail at once now, but for one trial"
                    + " every " + settings.openWait().toMillis() + " ms");
        }
    }

    public boolean isOpen() {
        return nextTrial.get() != CLOSED;
    }

    private void close() {
        if (nextTrial.getAndSet(CLOSED) != CLOSED) {
            trialSentAt.set(CLOSED);
            for (int slot = 0; slot < BUCKETS; slot++) {
                buckets.set(slot, null);
            }
            logger.info("Redis circuit breaker for " + name + " closed: Redis answers again");
        }
    }

    private void record(long now, boolean failed) {
        long index = Math.floorDiv(now, bucketNanos);
        int slot = (int) Math.floorMod(index, (long) BUCKETS);
        Bucket bucket = buckets.get(slot);
        while (bucket == null || bucket.index < index) {
            Bucket fresh = new Bucket(index);
            if (buckets.compareAndSet(slot, bucket, fresh)) {
                bucket = fresh;
            }
            else {
                bucket = buckets.get(slot);
            }
        }
        if (bucket.index != index) {
            return; // measured before a later bucket took the slot: too old to count
        }
        bucket.calls.increment();
        if (failed) {
            bucket.failures.increment();
        }
    }

    private static long notClosed(long nanos) {
        return (nanos == CLOSED) ? nanos + 1 : nanos;
    }

    /** Calls and failures counted in one tenth of the window. */
    private static final class Bucket {

        private final long index;
        private final LongAdder calls = new LongAdder();
        private final LongAdder failures = new LongAdder();

        private Bucket(long index) {
            this.index = index;
        }
    }
}
