package io.bloomguard.registry;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.RebuildableBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

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
 * <p>A shared filter grows the same way: the instance that sees it pass 90%, on a put or when it reads the stored fill
 * again (keys put by other instances), rebuilds it under the load lock, and every other instance recognises the larger
 * generation by its metadata. An instance that finds another one building it leaves the growth to that one.
 *
 * <p>A filter with no key source (filled by puts alone) cannot be rebuilt without emptying it: it reports being over
 * capacity instead, and the log says why once. Nor does it grow when the heap has no room for the larger filter beside
 * the live one (a shared filter's bits are built in this JVM too): it says so, and tries again after a pause.
 */
final class GrowthRebuilds {

    private static final Log logger = LogFactory.getLog(NamedBloomFilter.class);

    /** Share of its capacity at which a filter is rebuilt larger. */
    static final double THRESHOLD = 0.9;

    /** The rebuilt filter is sized for this many times the keys estimated when the rebuild begins. */
    static final int FACTOR = 2;

    /** Pause after a rebuild failed before the next put may start another. */
    private static final Duration RETRY_PAUSE = Duration.ofMinutes(1);

    /**
     * Pause while another instance builds a shared filter: its build may be a rebuild at the same size, after which
     * this one grows it, so not a whole {@link #RETRY_PAUSE}.
     */
    private static final Duration BUILT_ELSEWHERE_PAUSE = Duration.ofSeconds(2);

    private final NamedBloomFilter filter;
    /** A filter that can rebuild at another size (local or shared); {@code null} for one that cannot. */
    private final @Nullable RebuildableBloomFilter backend;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();
    /** {@code System.nanoTime()} before which no rebuild starts (after a failure); 0 for none. */
    private volatile long retryAt;
    /** Set once the filter cannot be built any larger. */
    private volatile boolean stopped;

    /** Bytes of heap free now: {@link #heapFree()}, or what a test says. */
    private final LongSupplier heapFree;

    private final BackgroundRebuilds background;

    GrowthRebuilds(NamedBloomFilter filter, @Nullable RebuildableBloomFilter backend, BackgroundRebuilds background) {
        this(filter, backend, background, GrowthRebuilds::heapFree);
    }

    GrowthRebuilds(NamedBloomFilter filter, @Nullable RebuildableBloomFilter backend, BackgroundRebuilds background,
            LongSupplier heapFree) {
        this.filter = filter;
        this.backend = backend;
        this.background = background;
        this.heapFree = heapFree; // (a shared filter's fill reads reach keysAdded through the named filter)
    }

    /**
     * Keys went in (a put that changed the filter, a load, a rebuild, a shared filter's fill read again): starts a
     * rebuild if one is due.
     */
    void keysAdded() {
        if (running.get() || stopped || filter.state() != FilterState.READY || filter.heldRebuild() != null) {
            // (A rebuild held back for reading too few keys waits for an operator: reading again would not help.)
            return;
        }
        long capacity = filter.capacity();
        long elements = filter.approximateElementCount();
        if (elements < THRESHOLD * capacity) {
            return;
        }
        if (backend != null && filter.shared().isPresent() && !backend.hasKeySource()) {
            if (warned.compareAndSet(false, true)) {
                logger.info("Filter '" + filter.name() + "' holds about " + elements + " keys, " + percent(elements,
                        capacity) + " of the " + capacity + " it is sized for: an instance with a key source grows it;"
                        + " this one has none");
            }
            return;
        }
        if (backend == null || !backend.hasKeySource()) {
            if (warned.compareAndSet(false, true)) {
                logger.warn("Filter '" + filter.name() + "' holds about " + elements + " keys, " + percent(elements,
                        capacity) + " of the " + capacity + " it is sized for, and growth: rebuild cannot rebuild it"
                        + " larger: " + (backend == null ? "it cannot be rebuilt"
                                : "it has no key source (declare preload.sql, or a BloomKeySource or"
                                        + " ReactiveBloomKeySource bean for it)")
                        + ". Past its capacity it reports being over capacity and lets more absent keys through than"
                        + " error-rate; raise expected-size");
            }
            return;
        }
        long pausedUntil = retryAt;
        if (pausedUntil != 0 && System.nanoTime() - pausedUntil < 0) {
            return;
        }
        if (running.compareAndSet(false, true) && !background.execute(this::grow)) {
            running.set(false); // the application is closing
        }
    }

    /**
     * A rebuild went through (an operator's, or this class's own): the key source works, so a pause left by a failed
     * growth is over, and the filter grows at once if it is still nearly full.
     */
    void rebuilt() {
        retryAt = 0;
        keysAdded();
    }

    /** Whether a rebuild at a larger size is under way. */
    boolean growing() {
        return running.get();
    }

    private void grow() {
        long capacity = filter.capacity();
        long elements = filter.approximateElementCount();
        try {
            if (backend != null) {
                // Read afresh: a shared filter's last estimate may be some refreshes old, and keys keep coming.
                elements = Math.max(elements, backend.approximateElementCount());
            }
            if (elements < THRESHOLD * capacity) {
                return; // it grew meanwhile (another instance grew a shared filter)
            }
            long target = (elements > Long.MAX_VALUE / FACTOR) ? Long.MAX_VALUE : elements * FACTOR;
            long needed = bytesFor(target);
            long free = heapFree.getAsLong();
            if (needed > free) {
                pause(RETRY_PAUSE);
                logger.warn("Filter '" + filter.name() + "' holds about " + elements + " keys, " + percent(elements,
                        capacity) + " of the " + capacity + " it is sized for, and cannot grow now: a filter for "
                        + target + " keys needs " + mebibytes(needed) + " MiB of heap beside the live one, and "
                        + mebibytes(free) + " MiB are free. It tries again in " + RETRY_PAUSE.toSeconds() + " s;"
                        + " give the JVM more memory, or raise expected-size");
                return;
            }
            long keys = filter.rebuildFor(target);
            retryAt = 0;
            logger.info("Filter '" + filter.name() + "' held about " + elements + " keys, " + percent(elements,
                    capacity) + " of the " + capacity + " it was sized for: rebuilt from its key source (" + keys
                    + " keys) for " + target + " keys");
        }
        catch (RebuildInProgressException ex) {
            pause(BUILT_ELSEWHERE_PAUSE); // another instance is building the shared filter: it may be larger then
            logger.debug("Filter '" + filter.name() + "': another instance is building it; growth waits", ex);
        }
        catch (RuntimeException ex) {
            IllegalArgumentException tooLarge = (ex instanceof IllegalArgumentException own) ? own
                    : (ex.getCause() instanceof IllegalArgumentException cause) ? cause : null;
            if (tooLarge != null) {
                stopped = true;
                logger.warn("Filter '" + filter.name() + "' cannot grow past " + capacity + " keys (" + tooLarge
                        .getMessage() + "): it reports being over capacity, and lets more absent keys through than"
                        + " error-rate");
            }
            else {
                pause(RETRY_PAUSE);
                logger.warn("Filter '" + filter.name() + "' could not grow (" + ex.getMessage() + "); the first put"
                        + " after " + RETRY_PAUSE.toSeconds() + " s tries again");
            }
        }
        finally {
            running.set(false);
        }
        keysAdded(); // keys came faster than the rebuild took them in
    }

    private void pause(Duration pause) {
        long next = System.nanoTime() + pause.toNanos();
        retryAt = (next == 0) ? 1 : next;
    }

    /** Bytes of a filter of this one's type and error rate, sized for {@code keys}. */
    private long bytesFor(long keys) {
        FilterSizing sizing = FilterSizing.of(keys, filter.spec().sizing().errorRate());
        return filter.spec().sizing().type().byteSize(sizing);
    }

    /**
     * Heap not in use now, garbage not yet collected counted as used: a heap full of garbage may refuse a growth that
     * would have fitted, which the next try after the pause takes.
     */
    private static long heapFree() {
        Runtime runtime = Runtime.getRuntime();
        return runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
    }

    private static long mebibytes(long bytes) {
        return bytes >> 20;
    }

    private static String percent(long part, long whole) {
        return Math.round(100.0 * part / whole) + "%";
    }
}
