package io.bloomguard.redis.engine;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisDenial;
import io.bloomguard.redis.port.RedisForeignFilterException;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A filter of the server's own that another program created and fills, under a key it named ({@code redis.key}):
 * bloom-guard checks it and adds its own writes' keys to it, but never creates, rebuilds or deletes it, and keeps no
 * generations of it. It is trusted to reject only while the key holds a filter of its kind with at least the declared
 * room and at most the declared error rate ({@link ServerKind#contradiction}), every add of this instance reached it,
 * and no instance marked it incomplete; a filter that is gone reads as unknown, never as absent.
 *
 * <p>Adds that could not reach it (Redis did not answer, or the key was gone) are kept, up to
 * {@code pending-adds-limit}, and written once it is back. One dropped past that bound, or a key lost on the way
 * ({@link #markIncomplete}), cannot be made up for by a rebuild here: the filter is marked incomplete in its own
 * metadata for every instance, and stays untrusted until an operator, once the owner has filled it again, deletes the
 * mark.
 *
 * <p>Usage: {@code ForeignFilter users = engine.foreign("users", "legacy:users:bf", kind, sizing, BUFFER);
 * users.follow(); users.mightContain(42L);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ForeignFilter implements SharedBloomFilter {

    private static final Log logger = LogFactory.getLog(ForeignFilter.class);

    /**
     * KEYS: the filter. ARGV: the kind's info command, its type name. Returns the key's type alone when it is none or
     * another, else the type and the info's names and values as text (an empty value as '').
     */
    static final LuaScript INFO = LuaScript.of("foreign-info", LuaScript.Result.LIST, """
            local kind = redis.call('TYPE', KEYS[1])['ok']
            if kind ~= ARGV[2] then return {kind} end
            local reply = {kind}
            for _, value in ipairs(redis.call(ARGV[1], KEYS[1])) do
              if type(value) == 'table' then value = value['ok'] end
              if not value then value = '' end
              reply[#reply + 1] = tostring(value)
            end
            return reply
            """);

    /** KEYS: this filter's own metadata. ARGV: why it is incomplete. Marks it so for every instance. */
    static final LuaScript MARK = LuaScript.of("foreign-mark", LuaScript.Result.INTEGER, """
            return redis.call('HSET', KEYS[1], 'stale', ARGV[1])
            """);

    /** Keys written in one script: as many as the kind's build sends at once. */
    private static final int BATCH = 1000;

    private final String name;
    private final String key;
    private final ServerKind kind;
    private final FilterSizing declared;
    private final AddFailurePolicy onAddFailure;
    private final RedisFilterKeys own;
    private final RedisCommands checks;
    private final RedisCommands commands;
    private final EngineSettings settings;
    private final ScheduledExecutorService scheduler;
    private final ConcurrentLinkedQueue<Object> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();
    /** Set once an add was dropped past the bound: the mark that says so is owed to Redis until it is written. */
    private volatile @Nullable String markOwed;
    private volatile Seen seen = new Seen(SharedFilterStatus.NOT_STARTED, "not started", Map.of());
    private volatile @Nullable RedisForeignFilterException refusal;
    private volatile @Nullable ScheduledFuture<?> refreshing;

    /** What the last refresh found: the status, why, and the filter's info fields. */
    private record Seen(SharedFilterStatus status, @Nullable String reason, Map<String, String> info) {
    }

    ForeignFilter(String name, String key, ServerKind kind, FilterSizing declared, AddFailurePolicy onAddFailure,
            EngineSettings settings, RedisCommands checks, RedisCommands commands,
            ScheduledExecutorService scheduler) {
        this.name = name;
        this.key = key;
        this.kind = kind;
        this.declared = declared;
        this.onAddFailure = onAddFailure;
        this.own = new RedisFilterKeys(settings.keyPrefix(), name);
        this.settings = settings;
        this.checks = checks;
        this.commands = commands;
        this.scheduler = scheduler;
    }

    /** The key it guards, the owner's. */
    public String key() {
        return key;
    }

    /** Reads the key at once, then every {@code refresh-interval}; the feed is never read (the owner fills it). */
    @Override
    public StartOutcome start(KeyFeed feed) {
        return follow();
    }

    @Override
    public synchronized StartOutcome follow() {
        refresh();
        if (refreshing == null) {
            long every = settings.refreshInterval().toMillis();
            refreshing = scheduler.scheduleWithFixedDelay(this::refreshQuietly, every, every, TimeUnit.MILLISECONDS);
        }
        RedisForeignFilterException refused = refusal;
        if (refused == null && seen.status() == SharedFilterStatus.MISMATCHED) {
            refusal = new RedisForeignFilterException(name, String.valueOf(seen.reason()), "Declare the filter's"
                    + " expected-size and error-rate as its owner created it (or ask the owner to create it so), or"
                    + " name another key in bloom-guard.filters." + name + ".redis.key");
        }
        return switch (seen.status()) {
            case READY -> StartOutcome.ALREADY_LOADED;
            case MISMATCHED -> StartOutcome.MISMATCHED;
            case UNREACHABLE -> StartOutcome.UNREACHABLE;
            case ACCESS_DENIED -> StartOutcome.ACCESS_DENIED;
            default -> StartOutcome.WAITING_FOR_A_LOADER;
        };
    }

    private void refreshQuietly() {
        try {
            refresh();
        }
        catch (RuntimeException ex) { // a scheduled task that throws is never run again
            seen = new Seen(SharedFilterStatus.STALE, "its last read failed: " + ex, seen.info());
        }
    }

    /** Reads the key's type and info, and this filter's mark; writes what is owed; sets the status from them. */
    void refresh() {
        List<String> reply;
        Map<String, String> meta;
        try {
            writeMarkOwed();
            List<?> raw = commands.call(port -> port.eval(INFO, List.of(key),
                    List.of(kind.infoCommand(), kind.redisType())).thenApply(List.class::cast), settings.commandTimeout());
            reply = raw.stream().map(value -> new String((byte[]) value, StandardCharsets.UTF_8)).toList();
            meta = commands.call(port -> port.hashGetAll(own.meta(0)), settings.commandTimeout());
        }
        catch (RedisUnavailableException ex) {
            RedisDenial denial = RedisDenial.of(ex);
            if (denial != null) {
                refusal = new RedisForeignFilterException(name, "Filter '" + name + "': Redis refuses what it needs on"
                        + " key '" + key + "' (" + denial.code() + ": " + denial.serverMessage() + ")", "Grant bloom-guard's user +eval +evalsha +type"
                        + " +" + kind.infoCommand().toLowerCase(java.util.Locale.ROOT) + " and the "
                        + kind.infoCommand().substring(0, 2) + ".* commands of docs/redis.md on ~" + key);
                seen = new Seen(SharedFilterStatus.ACCESS_DENIED, refusal.getMessage(), Map.of());
                return;
            }
            if (seen.status() == SharedFilterStatus.NOT_STARTED || seen.status() == SharedFilterStatus.UNREACHABLE) {
                seen = new Seen(SharedFilterStatus.UNREACHABLE, "Redis did not answer: " + ex.getMessage(), Map.of());
            }
            return; // else as it was: checks and adds meet the outage themselves
        }
        String type = reply.get(0);
        if (type.equals("none")) {
            seen = new Seen(SharedFilterStatus.MISSING, "key '" + key + "' does not exist: its owner has not created"
                    + " it yet, or it was deleted, evicted or flushed; calls pass through until it is back", Map.of());
            return;
        }
        if (!type.equals(kind.redisType())) {
            refusal = new RedisForeignFilterException(name, "Filter '" + name + "' guards key '" + key + "', which"
                    + " holds a " + type + ", not a " + kind.infoCommand().substring(0, 2) + " filter (" + kind.redisType()
                    + ")", "Name the key of the filter in bloom-guard.filters." + name + ".redis.key, or set its type"
                    + " (bloom for BF.*, cuckoo for CF.*)");
            seen = new Seen(SharedFilterStatus.ACCESS_DENIED, refusal.getMessage(), Map.of());
            return;
        }
        Map<String, String> info = new LinkedHashMap<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            info.put(reply.get(i), reply.get(i + 1));
        }
        String contradiction = kind.contradiction(info, declared);
        if (contradiction != null) {
            seen = new Seen(SharedFilterStatus.MISMATCHED, "Filter '" + name + "' guards key '" + key + "', whose"
                    + " filter contradicts what is declared: " + contradiction, info);
            return;
        }
        refusal = null;
        replay();
        String stale = meta.get("stale");
        if (stale != null) {
            seen = new Seen(SharedFilterStatus.STALE, "marked incomplete (" + stale + "): once the owner has filled"
                    + " key '" + key + "' again from the data, delete the mark: HDEL " + own.meta(0) + " stale", info);
        }
        else if (pendingCount.get() > 0) {
            seen = new Seen(SharedFilterStatus.STALE, pendingCount.get() + " adds of this instance not written yet",
                    info);
        }
        else {
            seen = new Seen(SharedFilterStatus.READY, null, info);
        }
    }

    /** Writes the adds kept for later, oldest first; those that still fail go back. */
    private void replay() {
        List<Object> batch = new ArrayList<>();
        Object next;
        while ((next = pending.poll()) != null) {
            batch.add(next);
            if (batch.size() == BATCH || pending.isEmpty()) {
                if (write(batch) < 0) {
                    pending.addAll(batch);
                    return;
                }
                pendingCount.addAndGet(-batch.size());
                batch.clear();
            }
        }
    }

    private void writeMarkOwed() {
        String mark = markOwed;
        if (mark != null) {
            commands.call(port -> port.eval(MARK, List.of(own.meta(0)), List.of(mark)), settings.commandTimeout());
            markOwed = null;
        }
    }

    /** How many of {@code keys} were new; -1 when the filter is gone. */
    private long write(List<Object> keys) {
        return commands.call(port -> kind.serverBuild().insert(port, key, keys), settings.commandTimeout());
    }

    @Override
    public boolean mightContain(Object key) {
        String text = KeyCanonicalizer.canonicalText(key); // refused in every state
        if (!trustedToReject()) {
            return true;
        }
        long answer = checks.call(port -> port.eval(kind.scripts().check(), List.of(this.key), List.of(text))
                .thenApply(Long.class::cast), settings.checkTimeout());
        if (answer < 0) {
            gone();
        }
        return answer != 0;
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        String text = KeyCanonicalizer.canonicalText(key);
        if (!trustedToReject()) {
            return CompletableFuture.completedFuture(true);
        }
        return checks.send(port -> port.eval(kind.scripts().check(), List.of(this.key), List.of(text)))
            .thenApply(answer -> {
                if ((Long) answer < 0) {
                    gone();
                }
                return (Long) answer != 0;
            });
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        boolean[] found = new boolean[keys.size()];
        List<String> texts = keys.stream().map(KeyCanonicalizer::canonicalText).toList();
        if (!trustedToReject()) {
            java.util.Arrays.fill(found, true);
            return found;
        }
        byte[] answers = checks.call(port -> port.eval(kind.scripts().checkAll(), List.of(key), texts)
                .thenApply(byte[].class::cast), settings.checkTimeout());
        String held = new String(answers, StandardCharsets.US_ASCII);
        if (held.equals("-")) {
            gone();
            java.util.Arrays.fill(found, true);
            return found;
        }
        for (int i = 0; i < found.length; i++) {
            found[i] = held.charAt(i) != '0';
        }
        return found;
    }

    private void gone() {
        seen = new Seen(SharedFilterStatus.MISSING, "key '" + key + "' was gone at a check", Map.of());
    }

    @Override
    public boolean put(Object key) {
        return putAll(List.of(key)) > 0;
    }

    /**
     * Adds the keys, up to two copies each in a cuckoo filter, never creating the filter. Keys that cannot be written
     * now are kept for replay and counted as new; under {@code on-add-failure: fail} they throw instead.
     */
    @Override
    public long putAll(Iterable<?> added) {
        List<Object> keys = new ArrayList<>();
        added.forEach(each -> {
            KeyCanonicalizer.canonicalText(each); // refused before anything is sent
            keys.add(each);
        });
        if (keys.isEmpty()) {
            return 0;
        }
        try {
            long fresh = write(keys);
            if (fresh >= 0) {
                return fresh;
            }
            gone();
            if (onAddFailure == AddFailurePolicy.FAIL) {
                throw new RedisUnavailableException("Filter '" + name + "': key '" + key + "' is gone, so "
                        + keys.size() + " keys could not be added");
            }
        }
        catch (RedisUnavailableException ex) {
            if (onAddFailure == AddFailurePolicy.FAIL) {
                throw ex;
            }
        }
        keep(keys);
        return keys.size();
    }

    private void keep(List<Object> keys) {
        int room = settings.pendingAddsLimit() - pendingCount.get();
        int kept = Math.max(0, Math.min(room, keys.size()));
        pending.addAll(keys.subList(0, kept));
        pendingCount.addAndGet(kept);
        if (kept < keys.size()) {
            markIncomplete((keys.size() - kept) + " adds dropped past pending-adds-limit");
        }
        seen = new Seen(SharedFilterStatus.STALE, pendingCount.get() + " adds of this instance not written yet",
                seen.info());
    }

    /** Marks it incomplete for every instance (now, or once Redis answers): no rebuild here can make up for a loss. */
    @Override
    public void markIncomplete(String reason) {
        markOwed = reason + " on an instance, at " + java.time.Instant.now();
        seen = new Seen(SharedFilterStatus.STALE, "marked incomplete: " + reason, seen.info());
        try {
            writeMarkOwed();
        }
        catch (RedisUnavailableException ex) {
            // written by the next refresh that reaches Redis
        }
    }

    /** Takes a key whose rows are proven gone out of a cuckoo filter: its last copy only (see the kind's scripts). */
    @Override
    public boolean remove(Object key) {
        LuaScript remove = kind.foreignRemove();
        if (remove == null) {
            return SharedBloomFilter.super.remove(key);
        }
        String text = KeyCanonicalizer.canonicalText(key);
        long answer = commands.call(port -> port.eval(remove, List.of(this.key), List.of(text))
                .thenApply(Long.class::cast), settings.commandTimeout());
        if (answer < 0) {
            gone();
        }
        return answer > 0;
    }

    /** Never: the owner fills it. */
    @Override
    public long rebuild() {
        throw new UnsupportedOperationException("Filter '" + name + "' guards key '" + key + "', which another"
                + " program creates and fills: bloom-guard does not rebuild it");
    }

    @Override
    public boolean hasKeySource() {
        return false;
    }

    @Override
    public boolean storedBefore() {
        return true; // never created here, empty or not
    }

    /** Ready, and every add of this instance written: a key kept for replay is not in the filter yet. */
    @Override
    public boolean trustedToReject() {
        return seen.status() == SharedFilterStatus.READY && pendingCount.get() == 0 && markOwed == null;
    }

    @Override
    public SharedFilterStatus status() {
        return seen.status();
    }

    @Override
    public @Nullable String statusReason() {
        return seen.reason();
    }

    @Override
    public @Nullable RuntimeException refusal() {
        return refusal;
    }

    @Override
    public int pendingAdds() {
        return pendingCount.get();
    }

    @Override
    public SharedFilterDetails details() {
        return new SharedFilterDetails(kind.infoCommand().substring(0, 2) + " at " + key, List.of(key),
                checks.breakerOpen(), commands.breakerOpen(), 1);
    }

    /**
     * Stops reading the key, then writes what this instance still owes it, once: its adds kept for later, or else the
     * mark that the filter is incomplete; what reaches Redis neither way is logged. Closing again does nothing more.
     */
    @Override
    public synchronized void close() {
        ScheduledFuture<?> task = refreshing;
        if (task != null) {
            task.cancel(false);
        }
        if (pendingCount.get() == 0 && markOwed == null) {
            return;
        }
        try {
            writeMarkOwed();
            replay();
        }
        catch (RuntimeException ex) {
            // left to the mark below
        }
        int unwritten = pendingCount.get();
        if (unwritten > 0) {
            markIncomplete(unwritten + " adds not written when an instance closed");
        }
        if (markOwed != null) {
            logger.error("Filter '" + name + "': " + unwritten + " adds to key '" + key + "' were not written, and"
                    + " Redis did not take the mark that says so: its other instances may reject those keys until the"
                    + " owner fills the filter again");
        }
    }

    /** Keys as the server counts them ({@code BF.INFO}'s or {@code CF.INFO}'s items inserted), as last read. */
    @Override
    public long approximateElementCount() {
        return ServerKind.infoNumber(seen.info().get("Number of items inserted"));
    }

    @Override
    public double expectedFpp() {
        return declared.errorRate();
    }

    @Override
    public long bitSize() {
        return ServerKind.infoNumber(seen.info().get("Size")) * Byte.SIZE;
    }

    @Override
    public int hashCount() {
        return 0; // the server's
    }

    @Override
    public FilterSizing sizing() {
        return declared;
    }

    @Override
    public int seed() {
        return 0; // the server hashes
    }

    @Override
    public String toString() {
        return "ForeignFilter[" + name + " at " + key + ", " + status() + "]";
    }
}
