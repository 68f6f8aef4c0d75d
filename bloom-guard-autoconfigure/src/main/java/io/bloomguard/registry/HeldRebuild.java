package io.bloomguard.registry;

import java.time.Instant;

/**
 * A rebuild whose keys were held back instead of swapped in: it read far fewer keys than the live filter holds; or,
 * for a filter filled by puts alone, the re-creation of a stored filter that lost its bits, which would be empty.
 *
 * @param keysRead  keys the rebuild read from the key source (none for a filter filled by puts alone)
 * @param liveKeys  keys the live filter was estimated to hold when the rebuild began
 * @param holdBelow the share of {@code liveKeys} below which a rebuild is held back ({@code rebuild.hold-below})
 * @param at        when it was held back
 * @param putsOnly  whether it is the re-creation, empty, of a filter filled by puts alone that was stored before
 *
 * @since 0.1.0
 */
public record HeldRebuild(long keysRead, long liveKeys, double holdBelow, Instant at, boolean putsOnly) {

    public HeldRebuild(long keysRead, long liveKeys, double holdBelow, Instant at) {
        this(keysRead, liveKeys, holdBelow, at, false);
    }

    /** The re-creation, empty, of a filter filled by puts alone whose stored bits are gone, held until confirmed. */
    static HeldRebuild putsOnlyLost(long liveKeys, Instant at) {
        return new HeldRebuild(0, liveKeys, 0, at, true);
    }

    /** What happened and what to do, for the log, health and the endpoint. */
    public String describe(String filter) {
        String confirm = "POST /actuator/bloomfilters/" + filter + " {\"action\":\"confirm-rebuild\"}, or call"
                + " confirmRebuild()";
        if (putsOnly) {
            return "it is filled by puts alone (puts-only: true) and was stored before, but its bits are gone from the"
                    + " store (flushed, evicted or deleted, whole or a part): created again it would be empty and"
                    + " reject every key put so far (about " + liveKeys + " when last counted), so it waits, not"
                    + " ready (calls pass through). Restore the store from a backup, or accept that the keys put so"
                    + " far are lost and create it again empty: " + confirm;
        }
        return "a rebuild read " + keysRead + " keys from the key source, fewer than " + Math.round(holdBelow * 100)
                + "% of the about " + (liveKeys == Long.MAX_VALUE ? "unbounded" : String.valueOf(liveKeys))
                + " keys the live filter holds, so it was not swapped in (the live filter keeps every key and goes on"
                + " guarding). If the key source is right and the rows were deleted, confirm it: " + confirm
                + "; otherwise fix the key source (an empty table, a wrong schema or profile)";
    }
}
