package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one instance owes the key of a {@link ForeignFilter}: adds that could not reach it (Redis did not answer, or the
 * key was gone), kept up to {@code pending-adds-limit} and written once it is back; and, for a key it lost (dropped past
 * that bound, or a failed key expression), the mark in the filter's own metadata that stops every instance from
 * rejecting, since no rebuild here can put the key back.
 *
 * <p>Usage: {@code long fresh = owed.insert(keys); if (fresh < 0) owed.keep(keys); ... owed.replay();}
 */
final class ForeignOwedAdds {

    private static final Log logger = LogFactory.getLog(ForeignOwedAdds.class);

    /** KEYS: the filter's own metadata. ARGV: why it is incomplete. Marks it so for every instance. */
    static final LuaScript MARK = LuaScript.of("foreign-mark", LuaScript.Result.INTEGER, """
            return redis.call('HSET', KEYS[1], 'stale', ARGV[1])
            """);

    /** Keys written in one script: as many as the kind's build sends at once. */
    private static final int BATCH = 1000;

    private final String name;
    private final String key;
    private final ServerKind kind;
    private final RedisFilterKeys own;
    private final RedisCommands commands;
    private final Duration timeout;
    private final int limit;
    private final ConcurrentLinkedQueue<Object> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    /** The mark owed to Redis until it is written. */
    private volatile @Nullable String markOwed;

    ForeignOwedAdds(String name, String key, ServerKind kind, RedisFilterKeys own, RedisCommands commands,
            Duration timeout, int limit) {
        this.name = name;
        this.key = key;
        this.kind = kind;
        this.own = own;
        this.commands = commands;
        this.timeout = timeout;
        this.limit = limit;
    }

    /** Adds {@code keys} to the filter, never creating it: how many were new, or -1 when it is gone. */
    long insert(List<Object> keys) {
        return commands.call(port -> kind.serverBuild().insert(port, key, keys), timeout);
    }

    /** Keeps {@code keys} for later, up to the bound; past it they are lost, and the filter is marked incomplete. */
    void keep(List<Object> keys) {
        int kept = Math.max(0, Math.min(limit - count.get(), keys.size()));
        pending.addAll(keys.subList(0, kept));
        count.addAndGet(kept);
        if (kept < keys.size()) {
            mark((keys.size() - kept) + " adds dropped past pending-adds-limit");
        }
    }

    /** Marks the filter incomplete for every instance, now or once Redis answers. */
    void mark(String reason) {
        markOwed = reason + " on an instance, at " + Instant.now();
        try {
            writeMark();
        }
        catch (RedisUnavailableException ex) {
            // written by the next read that reaches Redis
        }
    }

    /** Writes the mark owed, if any. */
    void writeMark() {
        String mark = markOwed;
        if (mark != null) {
            commands.call(port -> port.eval(MARK, List.of(own.meta(0)), List.of(mark)), timeout);
            markOwed = null;
        }
    }

    /** Writes the adds kept for later, oldest first, until one batch fails (it goes back): how many are left. */
    int replay() {
        List<Object> batch = new ArrayList<>();
        Object next;
        while ((next = pending.poll()) != null) {
            batch.add(next);
            if (batch.size() == BATCH || pending.isEmpty()) {
                if (insert(batch) < 0) {
                    pending.addAll(batch);
                    break;
                }
                count.addAndGet(-batch.size());
                batch.clear();
            }
        }
        return count.get();
    }

    /** Adds kept, not written yet. */
    int count() {
        return count.get();
    }

    /** Whether anything is owed: adds kept, or the mark. */
    boolean owes() {
        return count.get() > 0 || markOwed != null;
    }

    /**
     * For a closing instance, once: the mark and the adds kept, or else a mark for those; what reaches Redis neither
     * way is logged.
     */
    void lastAttempt() {
        if (!owes()) {
            return;
        }
        try {
            writeMark();
            replay();
        }
        catch (RuntimeException ex) {
            // left to the mark below
        }
        int unwritten = count.get();
        if (unwritten > 0) {
            mark(unwritten + " adds not written when an instance closed");
        }
        if (markOwed != null) {
            logger.error("Filter '" + name + "': " + unwritten + " adds to key '" + key + "' were not written, and"
                    + " Redis did not take the mark that says so: its other instances may reject those keys until the"
                    + " owner fills the filter again");
        }
    }
}
