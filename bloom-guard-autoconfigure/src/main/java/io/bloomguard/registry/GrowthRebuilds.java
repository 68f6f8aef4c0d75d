package io.bloomguard.registry;

import io.bloomguard.core.RebuildableBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code growth: rebuild}: once a filter's estimated keys reach {@value #THRESHOLD} of its capacity, it is rebuilt in
 * the background from its key source, sized for {@value #FACTOR} times the keys it holds then, beside the live filter
 * (checks never wait, puts meanwhile are kept), one rebuild at a time. If keys arrived faster than the rebuild took
 * them in, the next one follows at once.
 *
 * <p>Why 90%: a rebuild reads the whole key source while keys keep coming, so it starts while the false-positive rate
 * is still below the configured one (at 90% of its capacity a filter's rate is about 0.6 of it at ε = 1%). Why twice
 * the keys: the filter then rebuilds again only once its keys have doubled again, so the key source is read once per
 * doubling; memory grows in step with the keys.
 *
 * <p>A filter with no key source (filled by puts alone) cannot be rebuilt without emptying it, and a shared filter
 * cannot change its size yet: either reports being over capacity instead, and the log says why once.
 */
final class GrowthRebuilds {

    private static final Log logger = LogFactory.getLog(NamedBloomFilter.class);

    /** Share of its capacity at which a filter is rebuilt larger. */
    static final double THRESHOLD = 0.9;

    /** The rebuilt filter is sized for this many times the keys estimated when the rebuild begins. */
    static final int FACTOR = 2;

    /** Pause after a rebuild failed before the next put may start another. */
    private static final Duration RETRY_PAUSE = Duration.ofMinutes(1);

    private final NamedBloomFilter filter;
    /** A local filter that can rebuild at another size; {@code null} for one that cannot. */
    private final @Nullable RebuildableBloomFilter backend;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();
    /** {@code System.nanoTime()} before which no rebuild starts (after a failure); 0 for none. */
    private volatile long retryAt;
    /** Set once the filter cannot be built any larger. */
    private volatile boolean stopped;

    GrowthRebuilds(NamedBloomFilter filter, @Nullable RebuildableBloomFilter backend) {
        this.filter = filter;
        this.backend = backend;
    }

    /** Keys went in (a put that changed the filter, a load, a rebuild): starts a rebuild if one is due. */
    void keysAdded() {
        if (running.get() || stopped || filter.state() != FilterState.READY) {
            return;
        }
        long capacity = filter.capacity();
        long elements = filter.approximateElementCount();
        if (elements < THRESHOLD * capacity) {
            return;
        }
        if (backend == null || !backend.hasKeySource()) {
            if (warned.compareAndSet(false, true)) {
                logger.warn("Filter '" + filter.name() + "' holds about " + elements + " keys, " + percent(elements,
                        capacity) + " of the " + capacity + " it is sized for, and growth: rebuild cannot rebuild it"
                        + " larger: " + (backend == null ? "a " + filter.spec().backend().name().toLowerCase(
                                java.util.Locale.ROOT) + " filter cannot grow yet"
                                : "it has no key source (declare preload.sql or a BloomKeySource bean for it)")
                        + ". Past its capacity it reports being over capacity and lets more absent keys through than"
                        + " error-rate; raise expected-size");
            }
            return;
        }
        long pausedUntil = retryAt;
        if (pausedUntil != 0 && System.nanoTime() - pausedUntil < 0) {
            return;
        }
        if (running.compareAndSet(false, true)) {
            BackgroundRebuilds.EXECUTOR.execute(this::grow);
        }
    }

    /** Whether a rebuild at a larger size is under way. */
    boolean growing() {
        return running.get();
    }

    private void grow() {
        long capacity = filter.capacity();
        long elements = filter.approximateElementCount();
        long target = (elements > Long.MAX_VALUE / FACTOR) ? Long.MAX_VALUE : elements * FACTOR;
        try {
            long keys = filter.rebuildFor(target);
            retryAt = 0;
            logger.info("Filter '" + filter.name() + "' held about " + elements + " keys, " + percent(elements,
                    capacity) + " of the " + capacity + " it was sized for: rebuilt from its key source (" + keys
                    + " keys) for " + target + " keys");
        }
        catch (RuntimeException ex) {
            if (ex.getCause() instanceof IllegalArgumentException tooLarge) {
                stopped = true;
                logger.warn("Filter '" + filter.name() + "' cannot grow past " + capacity + " keys (" + tooLarge
                        .getMessage() + "): it reports being over capacity, and lets more absent keys through than"
                        + " error-rate");
            }
            else {
                long next = System.nanoTime() + RETRY_PAUSE.toNanos();
                retryAt = (next == 0) ? 1 : next;
                logger.warn("Filter '" + filter.name() + "' could not grow (" + ex.getMessage() + "); the first put"
                        + " after " + RETRY_PAUSE.toSeconds() + " s tries again");
            }
        }
        finally {
            running.set(false);
        }
        keysAdded(); // keys came faster than the rebuild took them in
    }

    private static String percent(long part, long whole) {
        return Math.round(100.0 * part / whole) + "%";
    }
}
