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
import io.bloomguard.redis.port.RedisUnavailableException;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A filter of the server's own that another program created and fills, under a key it named ({@code redis.key}):
 * bloom-guard checks it and adds its own writes' keys to it, but never creates, rebuilds or deletes it, and keeps no
 * generations of it. It is trusted to reject only while the key holds a filter of its kind with at least the declared
 * room and at most the declared error rate ({@link ServerKind#contradiction}), every add of this instance reached it,
 * and no instance marked it incomplete; a filter that is gone reads as unknown, never as absent.
 *
 * <p>What the key holds is read by {@link ForeignKeyState}; what this instance owes it (adds kept while it could not
 * be written, the mark that it lost one) by {@link ForeignOwedAdds}: no rebuild here can make up for a loss, so the
 * filter stays untrusted until an operator, once the owner has filled it again, deletes the mark.
 *
 * <p>Usage: {@code ForeignFilter users = engine.foreign("users", "legacy:users:bf", kind, sizing, BUFFER);
 * users.follow(); users.mightContain(42L);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ForeignFilter implements SharedBloomFilter {

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
    private final ForeignOwedAdds owed;
    private final ForeignKeyState state;
    private volatile @Nullable ScheduledFuture<?> refreshing;

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
        this.state = new ForeignKeyState(name, key, kind, declared, own, commands, settings.commandTimeout());
        this.owed = new ForeignOwedAdds(name, key, kind, own, commands, settings.commandTimeout(),
                settings.pendingAddsLimit());
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
        state.refuseIfMismatched();
        return switch (state.status()) {
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
            state.set(SharedFilterStatus.STALE, "its last read failed: " + ex);
        }
    }

    /** Writes what is owed, reads the key and this filter's mark, then writes the adds kept for later. */
    void refresh() {
        state.read(owed::writeMark, owed::replay);
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
        state.set(SharedFilterStatus.MISSING, "key '" + key + "' was gone at a check");
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
            long fresh = owed.insert(keys);
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
        owed.keep(keys);
        state.set(SharedFilterStatus.STALE, owed.count() + " adds of this instance not written yet");
        return keys.size();
    }

    /** Marks it incomplete for every instance (now, or once Redis answers): no rebuild here can make up for a loss. */
    @Override
    public void markIncomplete(String reason) {
        state.set(SharedFilterStatus.STALE, "marked incomplete: " + reason);
        owed.mark(reason);
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
        return state.status() == SharedFilterStatus.READY && !owed.owes();
    }

    @Override
    public SharedFilterStatus status() {
        return state.status();
    }

    @Override
    public @Nullable String statusReason() {
        return state.reason();
    }

    @Override
    public @Nullable RuntimeException refusal() {
        return state.refusal();
    }

    @Override
    public int pendingAdds() {
        return owed.count();
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
        owed.lastAttempt();
    }

    /** Keys as the server counts them ({@code BF.INFO}'s or {@code CF.INFO}'s items inserted), as last read. */
    @Override
    public long approximateElementCount() {
        return ServerKind.infoNumber(state.info().get("Number of items inserted"));
    }

    @Override
    public double expectedFpp() {
        return declared.errorRate();
    }

    @Override
    public long bitSize() {
        return ServerKind.infoNumber(state.info().get("Size")) * Byte.SIZE;
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
