package io.bloomguard.redis.kind;

/**
 * What an add script's reply says: how many keys changed a bitmap (certainly new), or that no bitmap took them (-1),
 * or that the caller's view of the generations is out of date (-2); plus {@link #LAYER_ADDED} when the add created
 * a layer of a filter that grows by layers.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param value      the reply without {@link #LAYER_ADDED}
 * @param layerAdded whether the add created a layer: the caller reads its view again at once
 * @hidden
 */
public record AddReply(long value, boolean layerAdded) {

    /** Added to a reply when the add created a layer: 2³², more than any count of keys in one call. */
    public static final long LAYER_ADDED = 1L << 32;

    public static AddReply of(long reply) {
        return (reply >= LAYER_ADDED) ? new AddReply(reply - LAYER_ADDED, true) : new AddReply(reply, false);
    }

    /** The view was out of date: nothing was written; refresh and retry. */
    public boolean outdated() {
        return value == -2;
    }

    /** No bitmap took the keys: the generation is gone. */
    public boolean missing() {
        return value == -1;
    }

    /** Keys that changed a bitmap: certainly new. */
    public long changed() {
        return Math.max(0, value);
    }
}
