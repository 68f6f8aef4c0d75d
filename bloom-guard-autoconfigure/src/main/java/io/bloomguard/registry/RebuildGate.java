package io.bloomguard.registry;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The one place that decides whether what a rebuild read may replace a filter's live keys, whichever path asked for
 * it: growth, self-recovery, a schedule, the endpoint, code, or a shared filter's own maintenance (a stale mark, a
 * missing bitmap, a takeover). Every rebuild reads its keys through {@link #guard(KeyFeed)}, and a read that cannot be
 * proven complete throws before the backend swaps anything in:
 * <ul>
 * <li>A filter filled by puts alone ({@code puts-only}) has no key source: a rebuild would empty it. It is refused,
 * except the one read that creates a shared filter empty at startup when nothing of it was stored yet. Once anything
 * was ({@link io.bloomguard.core.SharedBloomFilter#storedBefore()}), a store that lost its bits (whole or a part) has
 * the filter wait, not ready, and {@linkplain #held() held}, until an operator {@linkplain #confirmed confirms}
 * creating it again empty.</li>
 * <li>A read of far fewer keys than the live filter holds (below {@code rebuild.hold-below} of its estimate: an empty
 * table after a failed migration, a wrong schema or profile) is held back, reported once, and swapped in only by a
 * rebuild an operator {@linkplain #confirmed runs as confirmed}; a real mass delete stays possible that way. Where
 * the live keys cannot be counted (a shared filter whose store lost its bits), the most this instance has seen it
 * hold since its last rebuild stands in for them.</li>
 * </ul>
 */
final class RebuildGate {

    private static final Log logger = LogFactory.getLog(NamedBloomFilter.class);

    private final String filter;
    private final boolean putsOnly;
    private final double holdBelow;
    /**
     * Keys the live filter holds now, read afresh (for a shared filter, from the store); empty when there is no live
     * filter to count (a shared filter's store lost it).
     */
    private final Supplier<OptionalLong> liveKeys;
    /** Whether anything of the filter was ever stored (a shared filter's store, as far as this instance can tell). */
    private final BooleanSupplier storedBefore;
    private final Clock clock;
    /**
     * Set on the thread of a confirmed rebuild while it runs: its reads, and no other rebuild's, skip the hold-below
     * check. A confirmation whose rebuild is refused before it reads (another is under way) ends with its call, so
     * it never lets a later rebuild through. (Both backends read a rebuild's keys on the thread that asked for it;
     * one read elsewhere would be held, never swapped in unchecked.)
     */
    private final ThreadLocal<Boolean> confirming = new ThreadLocal<>();
    private final AtomicLong reads = new AtomicLong();
    /**
     * The keys the filter held when last counted, or read by the last rebuild swapped in: what a rebuild is held to
     * when the live keys cannot be counted (a shared filter whose store lost them).
     */
    private final AtomicLong lastCounted = new AtomicLong();
    private volatile @Nullable HeldRebuild held;
    private final AtomicBoolean refusalLogged = new AtomicBoolean();

    RebuildGate(FilterSpec spec, Supplier<OptionalLong> liveKeys, BooleanSupplier storedBefore, Clock clock) {
        this.filter = spec.name();
        this.putsOnly = spec.writes().putsOnly();
        this.holdBelow = spec.lifecycle().rebuildHoldBelow();
        this.liveKeys = liveKeys;
        this.storedBefore = storedBefore;
        this.clock = clock;
    }

    /**
     * Refuses a rebuild of a filter filled by puts alone, before anything is read or locked.
     *
     * @throws RebuildRefusedException naming the reason
     */
    void checkMayRebuild() {
        if (putsOnly && confirming.get() == null) {
            throw new RebuildRefusedException("Filter '" + filter + "' is filled by puts alone (puts-only: true): it"
                    + " has no key source, and a rebuild would empty it. It grows by layers instead; a deleted key"
                    + " stays in as a false positive");
        }
    }

    /**
     * The live filter was counted (a shared filter's fill read): what a rebuild is held to if it is lost later. A
     * filter whose every bit is set counts as unbounded ({@code Long.MAX_VALUE}): that says nothing of the keys it
     * holds, and no read could reach it, so the last real count stands (else its rebuild would be held for ever, and
     * the filter, which lets every call through, never replaced).
     */
    void counted(OptionalLong keys) {
        keys.ifPresent(count -> {
            if (count < Long.MAX_VALUE) {
                lastCounted.set(count);
            }
        });
    }

    /**
     * Runs {@code rebuild}, whose reads are swapped in however few keys they read: an operator has checked the key
     * source. The confirmation holds for that rebuild alone, and ends with it, whether it ran or was refused. For a
     * filter filled by puts alone, only while it waits to be created again empty ({@link #held()}): the operator
     * accepts that the keys put so far are lost.
     */
    long confirmed(LongSupplier rebuild) {
        HeldRebuild waiting = held;
        if (putsOnly && (waiting == null || !waiting.putsOnly())) {
            checkMayRebuild();
        }
        confirming.set(Boolean.TRUE);
        try {
            return rebuild.getAsLong();
        }
        finally {
            confirming.remove();
        }
    }

    /** The last rebuild held back, until a rebuild is swapped in; {@code null} when none is. */
    @Nullable HeldRebuild held() {
        return held;
    }

    /** {@code source}, read through this gate: what every rebuild of the filter reads. */
    KeyFeed guard(KeyFeed source) {
        KeyFeed guarded = batches -> {
            boolean first = reads.getAndIncrement() == 0;
            OptionalLong counted = liveKeys.get(); // before the read: keys put meanwhile reach the new filter anyway
            counted(counted);
            long live = lastCounted.get();
            if (putsOnly) {
                if (confirming.get() != null || first && live == 0 && !storedBefore.getAsBoolean()) {
                    // Created empty: at startup when nothing of it was stored, or again once an operator confirmed.
                    held = null;
                    refusalLogged.set(false);
                    return 0;
                }
                if (counted.isEmpty()) { // no live filter to count: the store lost its bits, whole or a part
                    HeldRebuild before = held;
                    HeldRebuild now = HeldRebuild.putsOnlyLost(live, clock.instant());
                    held = now;
                    if (before == null || !before.putsOnly()) {
                        logger.warn("Filter '" + filter + "': " + now.describe(filter));
                    }
                    throw new RebuildRefusedException("Filter '" + filter + "': " + now.describe(filter));
                }
                RebuildRefusedException refused = new RebuildRefusedException("Filter '" + filter + "' is filled by"
                        + " puts alone (puts-only: true) and cannot be built again without losing its keys: it stays"
                        + " not ready (calls pass through) rather than reject keys it held");
                if (refusalLogged.compareAndSet(false, true)) {
                    logger.warn(refused.getMessage()); // once: a shared filter's maintenance asks again and again
                }
                throw refused;
            }
            boolean confirmedNow = confirming.get() != null;
            long read = source.feed(batches);
            if (!confirmedNow && holdBelow > 0 && read < holdBelow * live) {
                HeldRebuild now = new HeldRebuild(read, live, holdBelow, clock.instant());
                if (held == null) {
                    logger.warn("Filter '" + filter + "': " + now.describe(filter));
                }
                held = now;
                throw new RebuildRefusedException("Filter '" + filter + "': " + now.describe(filter));
            }
            held = null;
            lastCounted.set(read);
            return read;
        };
        if (!putsOnly) {
            return guarded;
        }
        return new KeyFeed() { // filled by puts alone: no read gives its keys back

            @Override
            public long feed(Consumer<List<Object>> batches) {
                return guarded.feed(batches);
            }

            @Override
            public boolean complete() {
                return false;
            }
        };
    }
}
