package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.RedisScripts;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * This instance's stale marks for one filter. A stale mark in the filter's metadata tells every instance not to
 * reject with the stored filter until it has been rebuilt from its key source; this instance sends one when it has
 * lost keys (adds dropped past pending-adds-limit, a key it could not compute or write), and owes it while Redis does
 * not take it. It also remembers the last mark it sent and the dropped adds ({@link DroppedAdds#dropped()}) that mark
 * covers, until a rebuild that began after it has made up for them.
 *
 * <p>Usage: {@code marks.owe(reason); ... Owed owed = marks.owed(); marks.send(owed.reason()); marks.delivered(owed);}
 */
final class RedisStaleMarks {

    private final RedisFilterKeys keys;
    private final RedisFilterCommands commands;
    private final DroppedAdds dropped;
    /** Why the stored filter is to be marked stale, until Redis has the mark: this instance lost a key meanwhile. */
    private final AtomicReference<@Nullable Owed> owed = new AtomicReference<>();
    /**
     * The last stale mark this instance sent, until a refresh finds it cleared: a rebuild that began after it (by
     * any instance) has made up for the adds this instance had dropped before it.
     */
    private final AtomicReference<@Nullable Sent> sent = new AtomicReference<>();
    /** Dropped adds the stale marks this instance sent so far cover. */
    private volatile long dropsMarked;

    public RedisStaleMarks(RedisFilterKeys keys, RedisFilterCommands commands, DroppedAdds dropped) {
        this.keys = keys;
        this.commands = commands;
        this.dropped = dropped;
    }

    /** This instance lost a key: the stored filter is to be marked stale, for {@code reason}. */
    public void owe(String reason) {
        owed.set(new Owed(reason));
    }

    /** The mark this instance owes Redis, or {@code null}. */
    public @Nullable Owed owed() {
        return owed.get();
    }

    /** {@code mark} is in Redis and in this instance's view; one owed since (a key lost meanwhile) is owed still. */
    public void delivered(Owed mark) {
        owed.compareAndSet(mark, null);
    }

    /**
     * Sends a stale mark, even when the stored filter is marked already: a rebuild under way may have read its key
     * source before the keys this mark is for were lost, and must not clear the mark when it swaps.
     */
    public void send(String reason) {
        Sent mark = new Sent(dropped.dropped());
        commands.call(port -> port.eval(RedisScripts.MARK_STALE, List.of(keys.meta(0)), List.of(reason)));
        sent.set(mark);
        dropsMarked = Math.max(dropsMarked, mark.drops());
    }

    /** Whether adds were dropped that no stale mark sent by this instance covers yet. */
    public boolean unmarkedDrops() {
        return dropped.overflowed() && dropped.dropped() > dropsMarked;
    }

    /** How many dropped adds no stale mark sent by this instance covers. */
    public long unmarkedDropCount() {
        return dropped.dropped() - dropsMarked;
    }

    /** The last mark this instance sent, not known to be made up for yet; {@code null} when none. */
    public @Nullable Sent lastSent() {
        return sent.get();
    }

    /**
     * A rebuild read the key source after the first {@code drops} adds were dropped, and after {@code mark} (if any)
     * was sent: those adds are in the filter, and the mark is made up for, unless another was sent since.
     */
    public void madeUpFor(@Nullable Sent mark, long drops) {
        dropped.recovered(drops);
        sent.compareAndSet(mark, null);
    }

    /** A stale mark owed to Redis; each loss its own instance, so that one owed meanwhile is not taken as sent. */
    public record Owed(String reason) {
    }

    /** A stale mark this instance sent, and the dropped adds it covers. */
    public record Sent(long drops) {
    }
}
