package io.bloomguard.redis.kind;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * What an add script's reply says: how many keys changed a bitmap (certainly new), or that no bitmap took them (-1),
 * or that the caller's view of the generations is out of date (-2); plus, for an add that wrote,
 * {@link #LAYER_ADDED} when it created a layer of a filter that grows by layers, and {@link #WRITERS_WAIT} when the
 * shard's lease state ({@code redis.near-copy: leased}) was not {@code off}, with the lease it was switched on with in
 * milliseconds times {@link #LEASE_MILLIS} (0 when none is stored).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param value       the reply without its flags
 * @param layerAdded  whether the add created a layer: the caller reads its view again at once
 * @param writersWait whether a leased writer must wait before its commit: a near copy elsewhere may hold a lease that
 *                    vouches for bits without this add
 * @param lease       the lease the state names; {@code null} when it names none (the writer waits its own)
 * @hidden
 */
public record AddReply(long value, boolean layerAdded, boolean writersWait, @Nullable Duration lease) {

    /** Added to a reply when the add created a layer: 2³², more than any count of keys in one call. */
    public static final long LAYER_ADDED = 1L << 32;

    /** Added to a reply when the shard's lease state was not {@code off}: 2³³. */
    public static final long WRITERS_WAIT = 1L << 33;

    /** The lease's milliseconds are added times 2³⁴; a minute's fit well below 2⁵³, where Lua's numbers stay exact. */
    public static final long LEASE_MILLIS = 1L << 34;

    public AddReply(long value, boolean layerAdded) {
        this(value, layerAdded, false, null);
    }

    public static AddReply of(long reply) {
        if (reply < 0) {
            return new AddReply(reply, false);
        }
        long millis = reply / LEASE_MILLIS;
        return new AddReply(reply & (LAYER_ADDED - 1), (reply & LAYER_ADDED) != 0, (reply & WRITERS_WAIT) != 0,
                (millis > 0) ? Duration.ofMillis(millis) : null);
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
