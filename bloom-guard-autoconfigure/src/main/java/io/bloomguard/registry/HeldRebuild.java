package io.bloomguard.registry;

import java.time.Instant;

/**
 * A rebuild whose keys were held back instead of swapped in: it read far fewer keys than the live filter holds.
 *
 * @param keysRead  keys the rebuild read from the key source
 * @param liveKeys  keys the live filter was estimated to hold when the rebuild began
 * @param holdBelow the share of {@code liveKeys} below which a rebuild is held back ({@code rebuild.hold-below})
 * @param at        when it was held back
 */
public record HeldRebuild(long keysRead, long liveKeys, double holdBelow, Instant at) {

    /** What happened and what to do, for the log, health and the endpoint. */
    public String describe(String filter) {
        return "a rebuild read " + keysRead + " keys from the key source, fewer than " + Math.round(holdBelow * 100)
                + "% of the about " + (liveKeys == Long.MAX_VALUE ? "unbounded" : String.valueOf(liveKeys))
                + " keys the live filter holds, so it was not swapped in (the live filter keeps every key and goes on"
                + " guarding). If the key source is right and the rows were deleted, confirm it: POST"
                + " /actuator/bloomfilters/" + filter + " {\"action\":\"confirm-rebuild\"}, or call"
                + " confirmRebuild(); otherwise fix the key source (an empty table, a wrong schema or profile)";
    }
}
