package io.bloomguard.redis.engine;

/**
 * Adds this instance dropped past its pending-adds limit: replay can no longer make the filter complete, only a
 * rebuild that reads the key source after the drops can. The write path's buffer counts them; the stale marks and
 * the builds read the count, so they need nothing else of the buffer.
 */
interface DroppedAdds {

    /** Keys dropped so far: what a rebuild or a stale mark that starts now covers. */
    long dropped();

    /** Whether keys were dropped that no rebuild has made up for yet: only a rebuild can make the filter whole. */
    boolean overflowed();

    /** A rebuild read the key source after the first {@code drops} keys were dropped: they are in the filter. */
    void recovered(long drops);
}
