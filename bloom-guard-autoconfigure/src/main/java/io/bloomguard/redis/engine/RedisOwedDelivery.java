package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one filter on this instance owes Redis, and its delivery: the adds {@link RedisOutageBuffer} buffered, replayed
 * a batch at a time, and the {@linkplain RedisStaleMarks stale mark} it owes for keys it lost, sent by one thread at
 * a time. A closed filter's last attempt ({@link #deliverOwed()}) marks the filter stale for what it could not write,
 * and logs what reached Redis neither way.
 *
 * <p>Usage: {@code owed.deliver(); ... if (!owed.owesNothing()) ...; owed.deliverOwed();}
 */
final class RedisOwedDelivery {

    private static final Log logger = LogFactory.getLog(RedisOwedDelivery.class);

    private static final int REPLAY_BATCH = 10_000;

    private final String name;
    private final PendingAdds pending;
    private final RedisStaleMarks marks;
    private final RedisStoredState state;
    private final RedisBitWriter writer;
    /**
     * Held while a stale mark is sent: see {@link #sendOwedStaleMark()}. A lock, not a monitor: it is held across
     * round trips to Redis, on a request thread too, and a monitor held so would pin a virtual thread on Java 21.
     */
    private final ReentrantLock staleMarkSending = new ReentrantLock();

    RedisOwedDelivery(String name, PendingAdds pending, RedisStaleMarks marks, RedisStoredState state,
            RedisBitWriter writer) {
        this.name = name;
        this.pending = pending;
        this.marks = marks;
        this.state = state;
        this.writer = writer;
    }

    /**
     * Sends an owed stale mark and replays buffered adds.
     *
     * @throws RedisUnavailableException when Redis does not take them: they stay owed
     */
    void deliver() {
        sendOwedStaleMark();
        replayPending();
    }

    /**
     * One thread at a time (the write that lost a key, and the maintenance): a mark sent twice would reach Redis
     * after the rebuild it started had begun, and leave the rebuilt filter stale, to be rebuilt once more.
     */
    void sendOwedStaleMark() {
        staleMarkSending.lock();
        try {
            RedisStaleMarks.Owed owed = marks.owed();
            if (owed == null) {
                return;
            }
            marks.send(owed.reason());
            state.refresh(); // before the owed mark is let go: until this view shows the mark, status() must show it
            marks.delivered(owed); // a key lost meanwhile is owed still: its mark may come after a rebuild
        }
        finally {
            staleMarkSending.unlock();
        }
    }

    private void replayPending() {
        if (marks.unmarkedDrops()) {
            // Keys were dropped since the last mark: nobody may trust the stored filter until it is rebuilt.
            marks.send("adds lost by an instance while Redis was unavailable");
            state.refresh();
        }
        while (!pending.isEmpty()) {
            // The batch counts as pending (so the filter is not READY) until its script has run.
            List<Object> batch = pending.drain(REPLAY_BATCH);
            if (batch.isEmpty()) {
                return;
            }
            RedisBitWriter.Written result;
            try {
                result = writer.write(batch);
            }
            catch (RuntimeException ex) {
                pending.putBack(batch);
                throw ex;
            }
            List<Object> notWritten = result.notWritten();
            pending.written(batch.size() - notWritten.size());
            if (!notWritten.isEmpty()) {
                pending.putBack(notWritten);
                return; // no bitmap to write to yet (the rebuild will take them), or the generations kept changing
            }
            logger.info("Filter '" + name + "': replayed " + batch.size() + " adds kept for replay (Redis unavailable"
                    + " or no bitmap to write to when they were made, or lost by Redis after it acknowledged them)");
        }
    }

    /**
     * The last attempt of a closed filter, run {@linkplain RedisFilterCommands#within within} one: writes the buffered
     * adds and sends an owed stale mark; marks the filter stale for what it could not write; logs what reached Redis
     * neither way.
     */
    void deliverOwed() {
        if (owesNothing()) {
            return;
        }
        String failure = null;
        try {
            state.refresh();
            deliver();
        }
        catch (RuntimeException ex) {
            failure = ex.getMessage();
        }
        if (owesNothing()) {
            return;
        }
        String owed = describeOwed();
        String why = (failure != null) ? failure : "no bitmap in Redis to write them to";
        try {
            marks.send("an instance closed before it could write " + owed);
            logger.warn("Filter '" + name + "': could not write " + owed + " to Redis before this instance closed ("
                    + why + "); marked the filter stale in Redis instead, so that no instance rejects with it until"
                    + " it has been rebuilt from its key source");
        }
        catch (RuntimeException ex) {
            logger.error("Filter '" + name + "': lost " + owed + " when this instance closed: Redis took neither"
                    + " them (" + why + ") nor a stale mark (" + ex.getMessage() + "). The other instances may reject"
                    + " the records they belong to until the filter is rebuilt: once Redis is reachable, call"
                    + " rebuild() on an instance with a key source");
        }
    }

    /** Whether this instance owes Redis nothing: no buffered add, no unmarked drop, no stale mark. */
    boolean owesNothing() {
        return pending.isEmpty() && !marks.unmarkedDrops() && marks.owed() == null;
    }

    /**
     * Whether this instance knows of keys the stored filter may lack: buffered adds, dropped adds no rebuild has made
     * up for, or a stale mark it owes. It does not reject with the filter meanwhile.
     */
    boolean incomplete() {
        return !pending.isEmpty() || pending.overflowed() || marks.owed() != null;
    }

    /** Adds waiting for replay. */
    int pendingAdds() {
        return pending.size();
    }

    private String describeOwed() {
        List<String> parts = new ArrayList<>();
        if (!pending.isEmpty()) {
            parts.add(adds(pending.size()));
        }
        if (marks.unmarkedDrops()) {
            parts.add(adds(marks.unmarkedDropCount()) + " dropped past pending-adds-limit");
        }
        RedisStaleMarks.Owed mark = marks.owed();
        if (mark != null) {
            parts.add("a stale mark (" + mark.reason() + ")");
        }
        return String.join(" and ", parts);
    }

    static String adds(long count) {
        return (count == 1) ? "1 add" : count + " adds";
    }
}
