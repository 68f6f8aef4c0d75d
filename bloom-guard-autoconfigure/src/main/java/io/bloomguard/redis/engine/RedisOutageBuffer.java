package io.bloomguard.redis.engine;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.CommitWait;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Adds on their way to Redis, and what this instance owes it when they cannot get there: an add is written at once;
 * one that cannot be (Redis does not answer, no bitmap yet) is buffered in {@link PendingAdds} and replayed by the
 * maintenance task, and a loss (adds dropped past the buffer's bound, a key that could not be computed) is covered
 * by a {@linkplain RedisStaleMarks stale mark} for every instance. While any of it is owed this instance does not
 * reject with the filter. Once closed, nothing replays a buffer: {@link #deliverOwed()} is the last attempt ({@link RedisOwedDelivery}), and
 * adds from then on are written at once or covered by a stale mark.
 *
 * <p>Usage: {@code outage.putAll(keys); ... outage.deliver(); ... if (outage.close()) outage.deliverOwed();}
 */
final class RedisOutageBuffer {

    private static final Log logger = LogFactory.getLog(RedisOutageBuffer.class);

    private final String name;
    private final AddFailurePolicy onAddFailure;
    private final PendingAdds pending;
    private final RedisStaleMarks marks;
    private final RedisStoredState state;
    private final RedisBitWriter writer;
    private final RedisFilterCommands commands;
    private final RedisAccessState access;
    /** Has the recovery probe call for delivery as soon as Redis answers again. */
    private final Runnable waitForRedis;
    /** Set once by {@link #close()}: nothing replays buffered adds from then on. */
    private final AtomicBoolean closed = new AtomicBoolean();
    /** What this instance owes Redis, and its delivery. */
    private final RedisOwedDelivery owed;

    public RedisOutageBuffer(String name, AddFailurePolicy onAddFailure, PendingAdds pending, RedisStaleMarks marks,
            RedisStoredState state, RedisBitWriter writer, RedisFilterCommands commands, RedisAccessState access,
            Runnable waitForRedis) {
        this.name = name;
        this.onAddFailure = onAddFailure;
        this.pending = pending;
        this.marks = marks;
        this.state = state;
        this.writer = writer;
        this.commands = commands;
        this.access = access;
        this.waitForRedis = waitForRedis;
        this.owed = new RedisOwedDelivery(name, pending, marks, state, writer);
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#putAll}. */
    public long putAll(Iterable<?> added) {
        List<Object> list = new ArrayList<>();
        added.forEach(list::add);
        if (list.isEmpty()) {
            return 0;
        }
        if (closed.get()) {
            return commands.lastAttempt(() -> putAfterClose(list));
        }
        RedisAccessDeniedException denied = access.denied();
        if (denied != null) {
            // Not buffered: no replay would reach Redis until its configuration is fixed, and meanwhile the other
            // instances would reject these records. The caller learns it now.
            throw denied.again();
        }
        if (state.view() == RedisFilterView.NOT_STARTED && onAddFailure == AddFailurePolicy.BUFFER) {
            buffer(list);
            return list.size();
        }
        RedisBitWriter.Written result;
        try {
            if (state.view() == RedisFilterView.NOT_STARTED) {
                state.refresh(); // FAIL: the key must reach Redis now, so learn where it goes
            }
            result = writer.write(list);
        }
        catch (RedisUnavailableException ex) {
            if (onAddFailure == AddFailurePolicy.FAIL) {
                throw new RedisUnavailableException("Filter '" + name + "' could not write " + adds(list.size())
                        + " to Redis (" + ex.getMessage() + "), and on-add-failure is fail: the write must not"
                        + " succeed without its key", ex);
            }
            buffer(list);
            waitForRedis.run();
            logger.debug("Filter '" + name + "': buffered " + list.size() + " adds while Redis is unavailable", ex);
            commitWait(writer.missingWait()); // some adds may have landed, unanswered
            return list.size();
        }
        commitWait(result.commitNotBefore());
        if (!result.unwritten().isEmpty()) {
            buffer(result.unwritten()); // no bitmap to write to: no instance rejects with it; replayed
        }
        if (!result.unplaced().isEmpty()) {
            if (onAddFailure == AddFailurePolicy.FAIL) {
                // Buffered, they would be missing for the other instances, which trust the filter, until the replay.
                throw new RedisUnavailableException("Filter '" + name + "' could not place "
                        + adds(result.unplaced().size()) + " in Redis: its generations changed under each attempt"
                        + " (rebuilds in quick succession), and on-add-failure is fail: the write must not succeed"
                        + " without its key");
            }
            buffer(result.unplaced()); // replayed; the other instances may reject them meanwhile, as in an outage
        }
        return result.changed() + result.notWritten().size();
    }

    /** With a leased near copy: the wait before the caller's write may commit ({@link CommitWait}). */
    private static void commitWait(long notBefore) {
        if (notBefore != 0) {
            CommitWait.until(notBefore);
        }
    }

    private void buffer(List<Object> keys) {
        pending.addAll(keys);
        if (closed.get()) {
            // Closed while this put ran: the last attempt may have looked at the buffer before these keys were in.
            commands.lastAttempt(owed::deliverOwed);
        }
    }

    /** Runs as a last attempt of its own: nothing would replay a buffer. */
    private long putAfterClose(List<Object> keys) {
        String why;
        try {
            RedisFilterView current = state.view();
            if (current.live == null && current.next == null) {
                state.refresh();
            }
            RedisBitWriter.Written result = writer.write(keys);
            if (result.notWritten().isEmpty()) {
                return result.changed();
            }
            why = result.unplaced().isEmpty() ? "no bitmap in Redis to write them to"
                    : "its generations changed under each attempt";
        }
        catch (RedisUnavailableException ex) {
            why = ex.getMessage();
        }
        try {
            marks.send("an instance could not write " + adds(keys.size()) + " put after it closed");
        }
        catch (RedisUnavailableException ex) {
            throw new RedisUnavailableException("Filter '" + name + "' is closed, and Redis took neither the "
                    + adds(keys.size()) + " put after it closed (" + why + ") nor a stale mark (" + ex.getMessage()
                    + "): they are not in the filter", ex);
        }
        logger.warn("Filter '" + name + "' is closed and could not write " + adds(keys.size()) + " put after it"
                + " closed (" + why + "); marked the filter stale in Redis instead, so that no instance rejects with it"
                + " until it has been rebuilt from its key source");
        return keys.size();
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#markIncomplete}. */
    public void markIncomplete(String reason) {
        marks.owe(reason);
        if (access.denied() != null && !closed.get()) {
            return; // owed until Redis allows it; the refusal is logged once, not once per lost key
        }
        if (closed.get()) {
            // Nothing will send it later: one last attempt.
            try {
                commands.lastAttempt(owed::sendOwedStaleMark);
            }
            catch (RedisUnavailableException ex) {
                logger.error("Filter '" + name + "' misses a key, and this instance, closed already, could not mark it"
                        + " stale in Redis (" + ex.getMessage() + "): the other instances may reject its record until"
                        + " the filter is rebuilt");
            }
            return;
        }
        try {
            owed.sendOwedStaleMark();
        }
        catch (RedisUnavailableException ex) {
            waitForRedis.run();
            logger.warn("Filter '" + name + "' misses a key, but Redis is unavailable (" + ex.getMessage() + "): this"
                    + " instance does not reject with it meanwhile, and marks it stale in Redis, for every instance,"
                    + " once Redis answers again");
        }
    }

    /**
     * Sends an owed stale mark and replays buffered adds.
     *
     * @throws RedisUnavailableException when Redis does not take them: they stay owed
     */
    public void deliver() {
        owed.deliver();
    }

    /** The last attempt of a closed filter: see {@link RedisOwedDelivery#deliverOwed()}. */
    public void deliverOwed() {
        owed.deliverOwed();
    }

    /** See {@link RedisOwedDelivery#owesNothing()}. */
    public boolean owesNothing() {
        return owed.owesNothing();
    }

    /** See {@link RedisOwedDelivery#incomplete()}. */
    public boolean incomplete() {
        return owed.incomplete();
    }

    /** Adds waiting for replay. */
    public int pendingAdds() {
        return owed.pendingAdds();
    }

    /** Stops the replays; {@code true} for the call that closed it. */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    public boolean closed() {
        return closed.get();
    }

    private static String adds(long count) {
        return RedisOwedDelivery.adds(count);
    }
}
