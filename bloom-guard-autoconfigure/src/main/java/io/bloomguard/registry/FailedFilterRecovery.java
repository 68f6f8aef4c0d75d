package io.bloomguard.registry;

import io.bloomguard.core.RebuildableBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Brings a {@code FAILED} local filter back without a restart: rebuilds it from its key source in the background,
 * retrying with a pause that doubles after each failure (1 s up to 10 min). A filter that lost a key while a
 * rebuild ran stays {@code FAILED} and is rebuilt again: that rebuild may have read its key source before the row.
 * While a write that lost a key is still in an open transaction it does not rebuild at all: its read could not see
 * the row; the transaction's end marks the filter again and starts it.
 */
final class FailedFilterRecovery {

    private static final Log logger = LogFactory.getLog(NamedBloomFilter.class);

    private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);

    private static final Duration MAX_PAUSE = Duration.ofMinutes(10);

    private final NamedBloomFilter filter;
    private final RebuildableBloomFilter backend;
    private final AtomicLong losses = new AtomicLong();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final BackgroundRebuilds background;

    /**
     * Whether a write that lost a key is still in an open transaction: a rebuild now could not read its row, and
     * the end of that transaction starts the recovery again.
     */
    private final BooleanSupplier lossesOpen;

    FailedFilterRecovery(NamedBloomFilter filter, RebuildableBloomFilter backend, BackgroundRebuilds background,
            BooleanSupplier lossesOpen) {
        this.filter = filter;
        this.backend = backend;
        this.background = background;
        this.lossesOpen = lossesOpen;
    }

    /** A key the filter should hold is missing. */
    void lost() {
        losses.incrementAndGet();
    }

    /** Keys lost so far: a rebuild that began after the last of them makes the filter whole. */
    long losses() {
        return losses.get();
    }

    /**
     * Starts rebuilding the filter in the background, unless that is under way.
     *
     * @return whether the filter will recover by itself (it has a key source)
     */
    boolean start() {
        if (!backend.hasKeySource()) {
            return false;
        }
        if (scheduled.compareAndSet(false, true)) {
            schedule(FIRST_PAUSE);
        }
        return true;
    }

    private void schedule(Duration pause) {
        if (!background.schedule(() -> attempt(pause), pause)) {
            scheduled.set(false); // the application is closing
        }
    }

    private void attempt(Duration pause) {
        if (lossesOpen.getAsBoolean()) {
            scheduled.set(false); // the transaction's end starts it again
            if (!lossesOpen.getAsBoolean()) {
                start(); // it ended meanwhile, maybe while this was still scheduled
            }
            return;
        }
        try {
            long keys = filter.rebuild();
            if (filter.state() == FilterState.FAILED) {
                schedule(FIRST_PAUSE); // a key was lost while it ran
                return;
            }
            logger.info("Filter '" + filter.name() + "' rebuilt itself from its key source (" + keys + " keys) and"
                    + " rejects again");
            scheduled.set(false);
            if (filter.state() == FilterState.FAILED) {
                start(); // lost another key between the rebuild and now
            }
        }
        catch (RuntimeException ex) {
            Duration next = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
            logger.warn("Filter '" + filter.name() + "' could not rebuild itself (" + ex.getMessage() + "); it lets"
                    + " every call through and tries again in " + next.toSeconds() + " s");
            schedule(next);
        }
    }
}
