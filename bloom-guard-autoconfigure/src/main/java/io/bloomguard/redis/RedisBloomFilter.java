package io.bloomguard.redis;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A Bloom filter stored in Redis and shared by every instance: the same bits as {@link LocalBloomFilter} (so
 * filters move between the two), one {@code GETRANGE} of the key's 64-byte block per check, one script per
 * shard for an add or a batch.
 *
 * <p>Usage (the auto-configuration does this for {@code backend: redis}):
 * <pre>{@code
 * RedisBloomFilter users = backend.create("users", FilterSizing.of(10_000_000, 0.001), 1);
 * users.start(feed);                 // loads it once for all instances, or follows the loader
 * users.put(42L);
 * if (users.trustedToReject() && !users.mightContain(7L)) ...
 * }</pre>
 *
 * <p>What keeps it from ever answering "absent" for a key that was added:
 * <ul>
 * <li>the bitmap's key name carries the {@link RedisFilterIdentity} its bits were written with, so an instance
 * that would compute other positions reads a missing key ("not ready") instead;</li>
 * <li>a missing bitmap, a filter still loading, a stored filter of another size, or adds that could not be
 * written make the filter not {@linkplain #trustedToReject() trusted}, and calls pass through;</li>
 * <li>a rebuild creates the next generation first and every add from then on reaches both, so the swap loses
 * nothing;</li>
 * <li>adds that fail are buffered and replayed; past the buffer's bound the filter is marked stale in Redis
 * for every instance and rebuilt.</li>
 * </ul>
 *
 * <p>This class keeps the filter's state ({@link RedisFilterView}, buffered adds) and decides what to do; its
 * commands go through {@link RedisCommands} (timeouts, circuit breakers: one for checks, one for the rest), loads
 * and rebuilds hold a {@link RedisLoadLock}, and {@link RedisGenerations} moves whole bitmaps in and out.
 */
public final class RedisBloomFilter implements SharedBloomFilter {

    private static final Log logger = LogFactory.getLog(RedisBloomFilter.class);

    /** Words per {@code SETRANGE} / {@code GETRANGE} when moving whole bitmaps: 4 MiB. */
    private static final int CHUNK_WORDS = 1 << 19;

    private static final int REPLAY_BATCH = 10_000;

    private static final int WRITE_ATTEMPTS = 3;

    private static final Duration MAX_RETRY_PAUSE = Duration.ofMinutes(10);

    /** The reason of a build at startup: see {@link #buildHoldingLock}. */
    private static final String STARTUP = "startup";

    private final String name;
    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final RedisFilterKeys keys;
    private final RedisBackendSettings settings;
    /** Checks of single keys, with their short timeout and their own breaker. */
    private final RedisCommands checks;
    /** Every other command: adds, batches, metadata, builds. */
    private final RedisCommands commands;
    private final RedisLoadLock lock;
    private final RedisGenerations generations;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService builders;
    private final RecoveryProbe recovery;
    private final Semaphore startupBuilds;
    private final UnwritableAdds unwritableAdds;
    private final PendingAdds pending;
    private final AtomicBoolean building = new AtomicBoolean();
    private volatile RedisFilterView view = RedisFilterView.NOT_STARTED;
    private volatile BuildListener buildListener = (startup, keys, startNanos, failure) -> { };
    private volatile CheckLatencyListener checkLatency = CheckLatencyListener.NO_OP;
    /** The key source this instance (re)builds the filter from; null when it has none and only follows. */
    private volatile @Nullable KeyFeed feed = KeyFeed.EMPTY;
    /**
     * Set when this instance joins the filter, handing it its key source (or none): before that the feed above is a
     * placeholder, and a rebuild from it would swap in an empty filter that every instance trusts.
     */
    private volatile boolean joined;
    private volatile @Nullable ScheduledFuture<?> refresher;
    private volatile long nextBuildAttempt = System.nanoTime();
    /** Builds that failed in a row: each doubles the pause before the next attempt (a source that always fails). */
    private volatile int failedBuilds;
    /** Set once by {@link #close()}: nothing replays buffered adds from then on. */
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Why the stored filter is to be marked stale, until Redis has the mark: this instance lost a key meanwhile. */
    private final AtomicReference<@Nullable OwedMark> staleMarkOwed = new AtomicReference<>();
    /**
     * The last stale mark this instance sent, until a refresh finds it cleared: a rebuild that began after it (by
     * any instance) has made up for the adds this instance had dropped before it.
     */
    private final AtomicReference<@Nullable StaleMark> sentMark = new AtomicReference<>();
    /** Dropped adds ({@link PendingAdds#dropped()}) the stale marks this instance sent so far cover. */
    private volatile long dropsMarked;
    /** Outages and refusals met by this filter's commands, each logged once. */
    private final RedisAccessState access;
    private final RedisAccessCheck accessCheck;
    private final RedisFillEstimate fill;
    /** Set when the start could not reach Redis: until it has, the filter is {@code UNREACHABLE}. */
    private volatile boolean unreachableAtStart;

    RedisBloomFilter(String name, FilterSizing sizing, int seed, int shards, RedisBackendSettings settings,
            UnwritableAdds unwritableAdds, Shared backend) {
        this.name = name;
        this.sizing = sizing;
        this.configured = RedisFilterIdentity.of(sizing, seed, shards);
        this.keys = new RedisFilterKeys(settings.keyPrefix(), name);
        this.settings = settings;
        this.unwritableAdds = unwritableAdds;
        this.access = new RedisAccessState(name, new RedisAcl(settings.keyPrefix()));
        this.accessCheck = new RedisAccessCheck(keys, settings.commandTimeout(), access);
        this.fill = new RedisFillEstimate(settings.refreshInterval());
        this.checks = backend.checks().reportingTo(access);
        this.commands = backend.commands().reportingTo(access);
        this.lock = new RedisLoadLock(name, keys, commands, settings);
        this.generations = new RedisGenerations(name, keys, commands, settings.commandTimeout(), lock.owner());
        this.scheduler = backend.scheduler();
        this.builders = backend.builders();
        this.recovery = backend.recovery();
        this.startupBuilds = backend.startupBuilds();
        this.pending = new PendingAdds(settings.pendingAddsLimit());
    }

    public String name() {
        return name;
    }

    /** The key of the filter's metadata, which a {@link RecoveryProbe} asks about. */
    String metaKey() {
        return keys.meta(0);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public StartOutcome start(KeyFeed keys) {
        return join(keys);
    }

    @Override
    public StartOutcome follow() {
        return join(null);
    }

    /** Joins the shared filter: with a key source this instance may load it, without one it only follows. */
    private StartOutcome join(@Nullable KeyFeed keys) {
        this.feed = keys;
        this.joined = true;
        try {
            verifyAccess();
            refresh();
            return switch (view.status) {
                case READY -> StartOutcome.ALREADY_LOADED;
                case MISMATCHED -> StartOutcome.MISMATCHED;
                default -> (keys != null) ? loadUnlessAnotherInstanceDoes() : waitForALoader();
            };
        }
        catch (RedisAccessDeniedException ex) {
            return StartOutcome.ACCESS_DENIED; // logged, with what to fix, by the access state
        }
        catch (RedisUnavailableException ex) {
            access.failed(ex); // the outage this filter is in: its end is logged
            unreachableAtStart = true;
            logger.error("Filter '" + name + "' cannot reach Redis at startup (" + ex.getMessage() + "): it is"
                    + " UNREACHABLE, passes calls through, and holds the application's readiness at REFUSING_TRAFFIC"
                    + " until it has joined the shared filter; it keeps trying every " + settings.refreshInterval()
                    + ". Check that Redis (every node, for a cluster) is running and reachable from this host at"
                    + " spring.data.redis.host/port (or url, sentinel.nodes, cluster.nodes)");
            return StartOutcome.UNREACHABLE;
        }
        finally {
            scheduleMaintenance();
        }
    }

    private StartOutcome loadUnlessAnotherInstanceDoes() {
        if (!tryLockStillNeeded()) {
            if (view.status == SharedFilterStatus.READY) {
                return StartOutcome.ALREADY_LOADED;
            }
            if (view.status == SharedFilterStatus.MISMATCHED) {
                return StartOutcome.MISMATCHED;
            }
            logger.info("Filter '" + name + "' is being loaded by another instance; calls pass through until it is"
                    + " ready");
            return StartOutcome.LOADING_ELSEWHERE;
        }
        buildHoldingLock(STARTUP, configuredTarget(view), this::readKeySource);
        return StartOutcome.LOADED_HERE;
    }

    private StartOutcome waitForALoader() {
        logger.warn("Filter '" + name + "' is not loaded in Redis, and this instance has no key source for it, so it"
                + " will not load it (it could only load it empty): calls pass through until an instance with a key"
                + " source has loaded it. If the filter is meant to start empty and be filled by puts alone, declare"
                + " a BloomKeySource for it that yields no keys");
        return StartOutcome.WAITING_FOR_A_LOADER;
    }

    private void scheduleMaintenance() {
        long every = settings.refreshInterval().toMillis();
        try {
            refresher = scheduler.scheduleWithFixedDelay(this::maintain, every, every, TimeUnit.MILLISECONDS);
        }
        catch (java.util.concurrent.RejectedExecutionException ex) {
            // The backend was closed while this filter was starting (the application is shutting down).
            logger.debug("Filter '" + name + "': not scheduling maintenance, the backend is closed");
        }
    }

    /**
     * Takes the load lock if the filter still needs loading once it is held: the loader may have finished
     * between this instance's last look and the lock, and the filter must not be loaded twice.
     */
    private boolean tryLockStillNeeded() {
        if (!lock.tryLock()) {
            return false;
        }
        refresh();
        RedisFilterView current = view;
        boolean needed = current.status != SharedFilterStatus.READY && current.status != SharedFilterStatus.MISMATCHED
                || current.storeStale != null || pending.overflowed();
        if (!needed) {
            lock.release();
        }
        return needed;
    }

    /** Runs the {@link RedisAccessCheck}; throws {@link RedisAccessDeniedException} while Redis refuses a command. */
    private void verifyAccess() {
        // Past the breaker, within one command timeout: a breaker opened by the refusals would hold the check back.
        accessCheck.verify(commands.lastAttempt(settings.commandTimeout()));
    }

    /** The refusal this filter is under ({@code ACCESS_DENIED}), with what to change; {@code null} when none. */
    public @Nullable RedisAccessDeniedException accessDenied() {
        return access.denied();
    }

    @Override
    public @Nullable String statusReason() {
        return access.reason();
    }

    /** The fill last read by the maintenance task: never waits on Redis, never throws. */
    @Override
    public io.bloomguard.core.FillEstimate lastEstimate() {
        return fill.current(access.answering());
    }

    @Override
    public SharedFilterStatus status() {
        if (access.denied() != null) {
            return SharedFilterStatus.ACCESS_DENIED;
        }
        if (unreachableAtStart && view == RedisFilterView.NOT_STARTED) {
            return SharedFilterStatus.UNREACHABLE;
        }
        SharedFilterStatus stored = view.status;
        if (stored == SharedFilterStatus.READY && (!pending.isEmpty() || pending.overflowed()
                || staleMarkOwed.get() != null)) {
            return SharedFilterStatus.STALE;
        }
        return stored;
    }

    @Override
    public boolean hasKeySource() {
        return joined && feed != null;
    }

    @Override
    public long rebuild() {
        if (!joined) {
            throw new IllegalStateException("Filter '" + name + "' has not started yet (it is handed its key source"
                    + " when the application starts); rebuild it once it has");
        }
        if (feed == null) {
            throw new IllegalStateException("Filter '" + name + "' has no key source on this instance; rebuild it"
                    + " from an instance that has one");
        }
        refresh();
        if (!lock.tryLock()) {
            throw new IllegalStateException("Filter '" + name + "' is being loaded by another instance; try again when"
                    + " it is done");
        }
        return buildHoldingLock("rebuild", configuredTarget(view), this::readKeySource);
    }

    /**
     * Replaces the stored filter with the given bits (from {@link LocalBloomFilter#exportSnapshot()} or another
     * filter's {@link #exportSnapshot()}), as a rebuild does: adds made meanwhile are kept.
     *
     * @throws IllegalStateException when another instance holds the load lock
     */
    public void importSnapshot(FilterSnapshot snapshot) {
        refresh();
        if (!lock.tryLock()) {
            throw new IllegalStateException("Filter '" + name + "' is being loaded by another instance");
        }
        RedisFilterIdentity target = RedisFilterIdentity.of(snapshot.sizing(), snapshot.seed(), configured.shards());
        // The snapshot's own words are uploaded: no second copy of a possibly large array.
        long[] words = snapshot.words();
        buildHoldingLock("import", target, unused -> new Built(snapshot.sizing(),
                (from, into, count) -> System.arraycopy(words, from, into, 0, count), 0));
    }

    /** The stored bits with their size and seed, for a local filter or another store. */
    public FilterSnapshot exportSnapshot() {
        RedisFilterIdentity live = requireLive();
        return new FilterSnapshot(live.layoutVersion(), sizingOf(live), live.seed(), generations.download(live));
    }

    /**
     * Stops background work, then makes one last attempt to hand Redis what this instance still owes it, since
     * nothing will replay it later and the other instances would reject the records it belongs to: the buffered
     * adds are written, and whatever cannot be written is covered by marking the filter stale in Redis, so that no
     * instance rejects with it until it has been rebuilt from its key source. What reaches Redis neither way is
     * logged as an error, with the filter's name and how many adds were lost. The attempt goes past the circuit
     * breaker (open, perhaps, for a failure that is over) and takes at most
     * {@link RedisBackendSettings#lastAttemptTimeout()}. Closing again does nothing.
     *
     * <p>Adds after close are not buffered: see {@link #putAll}.
     */
    @Override
    public void close() {
        close(commands.lastAttempt(settings.lastAttemptTimeout()));
    }

    /** {@link #close()} within a last attempt shared by every filter of the backend. */
    void close(RedisCommands lastAttempt) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ScheduledFuture<?> task = refresher;
        if (task != null) {
            task.cancel(false);
        }
        deliverOwed(lastAttempt);
    }

    /**
     * Writes the buffered adds and sends an owed stale mark through {@code lastAttempt}; marks the filter stale
     * for what it could not write; logs what reached Redis neither way.
     */
    private void deliverOwed(RedisCommands lastAttempt) {
        if (nothingOwed()) {
            return;
        }
        String failure = null;
        try {
            refresh(lastAttempt);
            sendOwedStaleMark(lastAttempt);
            replayPending(lastAttempt);
        }
        catch (RuntimeException ex) {
            failure = ex.getMessage();
        }
        if (nothingOwed()) {
            return;
        }
        String owed = describeOwed();
        String why = (failure != null) ? failure : "no bitmap in Redis to write them to";
        try {
            markStale("an instance closed before it could write " + owed, lastAttempt);
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
    private boolean nothingOwed() {
        return pending.isEmpty() && !unmarkedDrops() && staleMarkOwed.get() == null;
    }

    private boolean unmarkedDrops() {
        return pending.overflowed() && pending.dropped() > dropsMarked;
    }

    private String describeOwed() {
        List<String> parts = new ArrayList<>();
        if (!pending.isEmpty()) {
            parts.add(adds(pending.size()));
        }
        if (unmarkedDrops()) {
            parts.add(adds(pending.dropped() - dropsMarked) + " dropped past pending-adds-limit");
        }
        OwedMark mark = staleMarkOwed.get();
        if (mark != null) {
            parts.add("a stale mark (" + mark.reason() + ")");
        }
        return String.join(" and ", parts);
    }

    private static String adds(long count) {
        return (count == 1) ? "1 add" : count + " adds";
    }

    // ---------------------------------------------------------------- checks

    @Override
    public boolean mightContain(Object key) {
        BlockCheck check = blockCheck(key);
        if (check == null) {
            return true;
        }
        long start = System.nanoTime();
        // Sent apart from awaited: a check the open breaker refuses never reached Redis, and is not timed.
        CompletableFuture<byte[]> reply = checks.send(port -> port.getRange(check.bitmap, check.start, check.end()));
        try {
            return check.answer(checks.await(reply, settings.checkTimeout()));
        }
        finally {
            checkLatency.checked(System.nanoTime() - start);
        }
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        BlockCheck check = blockCheck(key);
        if (check == null) {
            return CompletableFuture.completedFuture(true);
        }
        long start = System.nanoTime();
        CompletableFuture<byte[]> reply = checks.callAsync(
                port -> port.getRange(check.bitmap, check.start, check.end()), settings.checkTimeout());
        if (reply.isCompletedExceptionally()) {
            return reply.thenApply(check::answer); // not sent (breaker open, no connection): nothing to time
        }
        CheckLatencyListener listener = checkLatency;
        return reply.whenComplete((bytes, failure) -> listener.checked(System.nanoTime() - start))
                .thenApply(check::answer);
    }

    @Override
    public void onCheckLatency(CheckLatencyListener listener) {
        this.checkLatency = listener;
    }

    /** The block holding a key's bits; {@code null} when no generation is live (nothing to read: "might contain"). */
    private @Nullable BlockCheck blockCheck(Object key) {
        RedisFilterView current = view;
        RedisFilterIdentity live = current.live;
        if (live == null) {
            return null;
        }
        Hash128 hash = KeyCanonicalizer.hash(key, live.seed());
        long block = BlockedBloomLayout.blockIndex(hash.h1(), (int) live.blockCount());
        int shard = live.shardOf(block);
        long start = (block - live.firstBlockOf(shard)) * (BlockedBloomLayout.BLOCK_BITS / 8);
        return new BlockCheck(current, live, hash, current.liveKeys[shard], start);
    }

    /** The one block a key's bits are in, and how to read them from its bytes. */
    private final class BlockCheck {

        private final RedisFilterView view;
        private final RedisFilterIdentity live;
        private final Hash128 hash;
        private final String bitmap;
        private final long start;

        private BlockCheck(RedisFilterView view, RedisFilterIdentity live, Hash128 hash, String bitmap, long start) {
            this.view = view;
            this.live = live;
            this.hash = hash;
            this.bitmap = bitmap;
            this.start = start;
        }

        long end() {
            return start + BlockedBloomLayout.BLOCK_BITS / 8 - 1;
        }

        boolean answer(byte[] bytes) {
            if (bytes.length < BlockedBloomLayout.BLOCK_BITS / 8) {
                bitmapMissing(view);
                return true;
            }
            long step = BlockedBloomLayout.step(hash.h1());
            long probe = hash.h2();
            for (int i = 0; i < live.hashCount(); i++) {
                if (!RedisBitmapCodec.isSet(bytes, BlockedBloomLayout.bitInBlock(probe))) {
                    return false;
                }
                probe = BlockedBloomLayout.nextProbe(probe, step);
            }
            return true;
        }
    }

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    @Override
    public boolean[] mightContainAll(List<?> checked) {
        boolean[] answers = new boolean[checked.size()];
        RedisFilterView current = view;
        RedisFilterIdentity live = current.live;
        if (live == null) {
            java.util.Arrays.fill(answers, true);
            return answers;
        }
        Map<Integer, List<Integer>> indexesByShard = new LinkedHashMap<>();
        Map<Integer, List<String>> argsByShard = new LinkedHashMap<>();
        for (int i = 0; i < answers.length; i++) {
            RedisFilterIdentity.KeyBits located = live.locate(checked.get(i));
            indexesByShard.computeIfAbsent(located.shard(), s -> new ArrayList<>()).add(i);
            List<String> args = argsByShard.computeIfAbsent(located.shard(),
                    s -> new ArrayList<>(List.of(Integer.toString(live.hashCount()))));
            for (long offset : located.offsets()) {
                args.add(Long.toString(offset));
            }
        }
        Map<Integer, CompletableFuture<Object>> replies = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<String>> entry : argsByShard.entrySet()) {
            String bitmap = current.liveKeys[entry.getKey()];
            replies.put(entry.getKey(), commands.send(port -> port.eval(RedisScripts.CHECK_ALL, List.of(bitmap),
                    entry.getValue())));
        }
        for (Map.Entry<Integer, CompletableFuture<Object>> reply : replies.entrySet()) {
            byte[] bits = (byte[]) commands.await(reply.getValue(), settings.commandTimeout());
            List<Integer> indexes = indexesByShard.get(reply.getKey());
            // '-' is the script's "no bitmap"; a shard holding one key of the batch answers one character too.
            boolean missing = bits.length > 0 && bits[0] == '-';
            if (missing) {
                bitmapMissing(current);
            }
            for (int j = 0; j < indexes.size(); j++) {
                answers[indexes.get(j)] = missing || bits[j] == '1';
            }
        }
        return answers;
    }

    // ---------------------------------------------------------------- adds

    @Override
    public boolean put(Object key) {
        return putAll(List.of(key)) > 0;
    }

    /**
     * Adds keys with one script per shard. Keys that cannot be written now (Redis unreachable, no bitmap yet)
     * are buffered for replay and counted as new, since they may be. Under {@link UnwritableAdds#FAIL} keys that
     * cannot be written because Redis does not answer (or its circuit breaker is open) are not buffered: this
     * throws, so that the write they belong to fails.
     *
     * <p>After {@link #close()} nothing replays a buffer, so keys are not buffered: they are written at once, past
     * the circuit breaker, within {@link RedisBackendSettings#lastAttemptTimeout()}; if they cannot be, the filter
     * is marked stale in Redis instead (no instance rejects with it until it has been rebuilt from its key source);
     * if neither reaches Redis (it is down, or the backend has released its connection), this throws, so that the
     * loss is not silent: the caller's write can roll back, and the guard logs it.
     *
     * @throws RedisUnavailableException after close, when neither the keys nor a stale mark reached Redis; under
     *                                   {@link UnwritableAdds#FAIL}, when Redis did not take the keys
     */
    @Override
    public long putAll(Iterable<?> added) {
        List<Object> list = new ArrayList<>();
        added.forEach(list::add);
        if (list.isEmpty()) {
            return 0;
        }
        if (closed.get()) {
            return putAfterClose(list);
        }
        RedisAccessDeniedException denied = access.denied();
        if (denied != null) {
            // Not buffered: no replay would reach Redis until its configuration is fixed, and meanwhile the other
            // instances would reject these records. The caller learns it now.
            throw denied.again();
        }
        if (view == RedisFilterView.NOT_STARTED && unwritableAdds == UnwritableAdds.BUFFER) {
            buffer(list);
            return list.size();
        }
        try {
            if (view == RedisFilterView.NOT_STARTED) {
                refresh(); // FAIL: the key must reach Redis now, so learn where it goes
            }
            WriteResult result = write(list, commands);
            if (!result.unwritten.isEmpty()) {
                buffer(result.unwritten); // no bitmap to write to (no instance rejects with it) or churn: replayed
            }
            return result.changed + result.unwritten.size();
        }
        catch (RedisUnavailableException ex) {
            if (unwritableAdds == UnwritableAdds.FAIL) {
                throw new RedisUnavailableException("Filter '" + name + "' could not write " + adds(list.size())
                        + " to Redis (" + ex.getMessage() + "), and on-add-failure is fail: the write must not"
                        + " succeed without its key", ex);
            }
            buffer(list);
            recovery.waiting(this);
            logger.debug("Filter '" + name + "': buffered " + list.size() + " adds while Redis is unavailable", ex);
            return list.size();
        }
    }

    private void buffer(List<Object> keys) {
        pending.addAll(keys);
        if (closed.get()) {
            // Closed while this put ran: the last attempt may have looked at the buffer before these keys were in.
            deliverOwed(commands.lastAttempt(settings.lastAttemptTimeout()));
        }
    }

    private long putAfterClose(List<Object> keys) {
        RedisCommands lastAttempt = commands.lastAttempt(settings.lastAttemptTimeout());
        String why;
        try {
            if (view.live == null && view.next == null) {
                refresh(lastAttempt);
            }
            WriteResult result = write(keys, lastAttempt);
            if (result.unwritten.isEmpty()) {
                return result.changed;
            }
            why = "no bitmap in Redis to write them to";
        }
        catch (RedisUnavailableException ex) {
            why = ex.getMessage();
        }
        try {
            markStale("an instance could not write " + adds(keys.size()) + " put after it closed", lastAttempt);
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

    private WriteResult write(List<Object> toWrite, RedisCommands via) {
        List<Object> remaining = toWrite;
        long changed = 0;
        List<Object> unwritten = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            RedisFilterView current = view;
            if (current.live == null && current.next == null) {
                unwritten.addAll(remaining);
                return new WriteResult(changed, unwritten);
            }
            Map<Integer, RedisShardWrite> writes = new LinkedHashMap<>();
            for (Object key : remaining) {
                if (current.live != null) {
                    RedisFilterIdentity.KeyBits located = current.live.locate(key);
                    writes.computeIfAbsent(located.shard(), this::shardWrite).addLive(key, located.offsets());
                }
                if (current.next != null) {
                    RedisFilterIdentity.KeyBits located = current.next.locate(key);
                    writes.computeIfAbsent(located.shard(), this::shardWrite).addNext(key, located.offsets());
                }
            }
            Map<RedisShardWrite, CompletableFuture<Object>> replies = new LinkedHashMap<>();
            for (RedisShardWrite shardWrite : writes.values()) {
                replies.put(shardWrite, via.send(port -> port.eval(RedisScripts.ADD,
                        shardWrite.keys(current), shardWrite.args(current))));
            }
            Set<Object> retry = new LinkedHashSet<>();
            for (Map.Entry<RedisShardWrite, CompletableFuture<Object>> reply : replies.entrySet()) {
                long answer = (Long) via.await(reply.getValue(), settings.commandTimeout());
                if (answer == -2) {
                    retry.addAll(reply.getKey().allKeys());
                }
                else if (answer == -1) {
                    unwritten.addAll(reply.getKey().allKeys());
                    bitmapMissing(current);
                }
                else {
                    changed += answer;
                }
            }
            if (retry.isEmpty()) {
                return new WriteResult(changed, unwritten);
            }
            if (attempt == WRITE_ATTEMPTS) {
                unwritten.addAll(retry);
                return new WriteResult(changed, unwritten);
            }
            refresh(via); // a generation started or was swapped since this instance last looked
            remaining = new ArrayList<>(retry);
        }
    }

    private RedisShardWrite shardWrite(int shard) {
        return new RedisShardWrite(shard, keys);
    }

    // ---------------------------------------------------------------- sizes

    @Override
    public long approximateElementCount() {
        double estimate = estimateKeys();
        return Double.isInfinite(estimate) ? Long.MAX_VALUE : Math.round(estimate);
    }

    @Override
    public double expectedFpp() {
        RedisFilterIdentity live = view.live;
        if (live == null) {
            return 0.0;
        }
        double estimate = estimateKeys();
        return Double.isInfinite(estimate) ? 1.0 : sizingOf(live).falsePositiveProbability(estimate);
    }

    /** The fill as the maintenance task reads it: one {@code BITCOUNT} per shard. */
    private io.bloomguard.core.FillEstimate readFill() {
        RedisFilterIdentity live = view.live;
        double estimate = estimateKeys();
        long count = Double.isInfinite(estimate) ? Long.MAX_VALUE : Math.round(estimate);
        double fpp = (live == null) ? 0.0
                : Double.isInfinite(estimate) ? 1.0 : sizingOf(live).falsePositiveProbability(estimate);
        return new io.bloomguard.core.FillEstimate(count, fpp, java.time.Instant.now(), false);
    }

    private double estimateKeys() {
        RedisFilterView current = view;
        RedisFilterIdentity live = current.live;
        if (live == null) {
            return 0;
        }
        long setBits = 0;
        for (String bitmap : current.liveKeys) {
            setBits += commands.call(port -> port.bitCount(bitmap), settings.commandTimeout());
        }
        return sizingOf(live).estimateKeys(setBits);
    }

    @Override
    public long bitSize() {
        return sizing.bitSize();
    }

    @Override
    public int hashCount() {
        return sizing.hashCount();
    }

    @Override
    public FilterSizing sizing() {
        return sizing;
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    @Override
    public int seed() {
        RedisFilterIdentity live = view.live;
        return (live != null) ? live.seed() : configured.seed();
    }

    /** Shards the configured filter is split over. */
    public int shards() {
        return configured.shards();
    }

    @Override
    public SharedFilterDetails details() {
        RedisFilterIdentity live = view.live;
        List<String> liveKeys = new ArrayList<>();
        if (live != null) {
            for (int shard = 0; shard < live.shards(); shard++) {
                liveKeys.add(keys.bitsWithoutSeed(shard, live));
            }
        }
        return new SharedFilterDetails((live != null) ? live.fingerprintWithoutSeed() : null, liveKeys,
                checks.breakerOpen(), commands.breakerOpen(), configured.shards());
    }

    /** Adds waiting for replay. */
    public int pendingAdds() {
        return pending.size();
    }

    // ---------------------------------------------------------------- background work

    /** Reads the stored state, replays buffered adds, and (re)builds the filter when it is gone or stale. */
    void maintain() {
        if (closed.get()) {
            return;
        }
        try {
            if (access.unverified()) {
                verifyAccess(); // throws while Redis refuses a command
            }
            refresh();
            fill.refreshIfDue(this::readFill);
            sendOwedStaleMark(commands);
            replayPending(commands);
            buildIfNeeded();
        }
        catch (RedisAccessDeniedException ex) {
            logger.debug("Filter '" + name + "': Redis still refuses access", ex);
        }
        catch (RedisUnavailableException ex) {
            if (!nothingOwed()) {
                recovery.waiting(this);
            }
            logger.debug("Filter '" + name + "': Redis unavailable during maintenance", ex);
        }
        catch (RuntimeException ex) {
            logger.warn("Filter '" + name + "': maintenance failed", ex);
        }
    }

    /**
     * Marks the stored filter stale for every instance. If Redis cannot be reached, this instance stops trusting
     * the filter at once and sends the mark when Redis is back (the other instances cannot be told before).
     */
    @Override
    public void markIncomplete(String reason) {
        staleMarkOwed.set(new OwedMark(reason));
        if (access.denied() != null && !closed.get()) {
            return; // owed until Redis allows it; the refusal is logged once, not once per lost key
        }
        if (closed.get()) {
            // Nothing will send it later: one last attempt.
            try {
                sendOwedStaleMark(commands.lastAttempt(settings.lastAttemptTimeout()));
            }
            catch (RedisUnavailableException ex) {
                logger.error("Filter '" + name + "' misses a key, and this instance, closed already, could not mark it"
                        + " stale in Redis (" + ex.getMessage() + "): the other instances may reject its record until"
                        + " the filter is rebuilt");
            }
            return;
        }
        try {
            sendOwedStaleMark(commands);
        }
        catch (RedisUnavailableException ex) {
            recovery.waiting(this);
            logger.warn("Filter '" + name + "' misses a key, but Redis is unavailable (" + ex.getMessage() + "): this"
                    + " instance does not reject with it meanwhile, and marks it stale in Redis, for every instance,"
                    + " once Redis answers again");
        }
    }

    private void sendOwedStaleMark(RedisCommands via) {
        OwedMark owed = staleMarkOwed.get();
        if (owed == null) {
            return;
        }
        markStale(owed.reason(), via);
        refresh(via); // before the owed mark is let go: until this view shows the mark, status() must show it
        staleMarkOwed.compareAndSet(owed, null); // a key lost meanwhile is owed still: its mark may come after a rebuild
    }

    /**
     * Sends a stale mark, even when the stored filter is marked already: a rebuild under way may have read its key
     * source before the keys this mark is for were lost, and must not clear the mark when it swaps.
     */
    private void markStale(String reason, RedisCommands via) {
        StaleMark mark = new StaleMark(pending.dropped());
        via.call(port -> port.eval(RedisScripts.MARK_STALE, List.of(keys.meta(0)), List.of(reason)),
                settings.commandTimeout());
        sentMark.set(mark);
        dropsMarked = Math.max(dropsMarked, mark.drops());
    }

    private void replayPending(RedisCommands via) {
        if (unmarkedDrops()) {
            // Keys were dropped since the last mark: nobody may trust the stored filter until it is rebuilt.
            markStale("adds lost by an instance while Redis was unavailable", via);
            refresh(via);
        }
        while (!pending.isEmpty()) {
            // The batch counts as pending (so status() is not READY) until its script has run.
            List<Object> batch = pending.drain(REPLAY_BATCH);
            if (batch.isEmpty()) {
                return;
            }
            WriteResult result;
            try {
                result = write(batch, via);
            }
            catch (RuntimeException ex) {
                pending.putBack(batch);
                throw ex;
            }
            pending.written(batch.size() - result.unwritten.size());
            if (!result.unwritten.isEmpty()) {
                pending.putBack(result.unwritten);
                return; // no bitmap to write to yet: the rebuild will take them
            }
            logger.info("Filter '" + name + "': replayed " + batch.size() + " adds that could not be written when made"
                    + " (Redis unavailable, or no bitmap to write to)");
        }
    }

    private void buildIfNeeded() {
        if (feed == null) {
            return; // no key source here: an instance that has one builds it
        }
        RedisFilterView current = view;
        boolean needed = current.status == SharedFilterStatus.MISSING || current.status == SharedFilterStatus.LOADING
                || current.storeStale != null || pending.overflowed();
        if (!needed || building.get() || System.nanoTime() - nextBuildAttempt < 0 || !tryLockStillNeeded()) {
            return;
        }
        current = view;
        String reason = (current.status == SharedFilterStatus.LOADING) ? "takeover from a loader that stopped"
                : (current.status == SharedFilterStatus.MISSING) ? "bitmap missing" : "stale";
        RedisFilterView seen = current;
        builders.execute(() -> {
            try {
                buildHoldingLock(reason, configuredTarget(seen), this::readKeySource);
            }
            catch (Exception ex) { // checked ones too, thrown sneakily by a key source
                logger.error("Filter '" + name + "': " + reason + " rebuild failed; retrying in "
                        + retryPause().toSeconds() + " s", ex);
            }
        });
    }

    /** Reads the metadata of shard 0 and whether the live bitmaps exist; updates {@link #status()}. */
    void refresh() {
        refresh(commands);
    }

    private void refresh(RedisCommands via) {
        StaleMark mark = sentMark.get(); // taken before the read: a mark sent before it is in what it reads
        Map<String, String> meta = via.call(port -> port.hashGetAll(keys.meta(0)), settings.commandTimeout());
        RedisFilterIdentity live = RedisFilterIdentity.parse(meta.get("live"));
        RedisFilterIdentity next = RedisFilterIdentity.parse(meta.get("next"));
        if (live != null && !live.readable()) {
            live = null; // written by a version with another layout: this one can neither read nor add
        }
        if (next != null && !next.readable()) {
            next = null;
        }
        String stale = meta.get("stale");
        if (mark != null && stale == null && live != null) {
            // Only a rebuild that began after the mark clears it (or the store was wiped and built again since):
            // it read the key source after the adds the mark was for were lost, so they are in.
            pending.recovered(mark.drops());
            sentMark.compareAndSet(mark, null);
        }
        SharedFilterStatus status;
        if (live != null && !allExist(live, via)) {
            live = null;
        }
        if (live == null) {
            status = (next != null) ? SharedFilterStatus.LOADING : SharedFilterStatus.MISSING;
        }
        else if (!live.sameShape(configured)) {
            status = SharedFilterStatus.MISMATCHED;
        }
        else if (stale != null) {
            status = SharedFilterStatus.STALE;
        }
        else {
            status = SharedFilterStatus.READY;
        }
        RedisFilterView previous = view;
        RedisFilterView updated = new RedisFilterView(status, live, next, stale, keys);
        view = updated;
        reportChange(previous, updated, meta);
    }

    private boolean allExist(RedisFilterIdentity live, RedisCommands via) {
        List<CompletableFuture<Long>> replies = new ArrayList<>();
        for (int shard = 0; shard < live.shards(); shard++) {
            String bitmap = keys.bits(shard, live);
            replies.add(via.send(port -> port.exists(bitmap)));
        }
        boolean all = true;
        for (CompletableFuture<Long> reply : replies) {
            all &= via.await(reply, settings.commandTimeout()) == 1L;
        }
        return all;
    }

    private void reportChange(RedisFilterView previous, RedisFilterView updated, Map<String, String> meta) {
        if (previous.status == updated.status) {
            return;
        }
        switch (updated.status) {
            case MISMATCHED -> logger.warn("Filter '" + name + "': the filter stored in Redis ("
                    + String.valueOf(meta.get("live")).replaceFirst("\\.s-?[0-9a-f]+", ".s*") // never the seed
                    + ", expected-size " + meta.get("expected-size") + ", error-rate " + meta.get("error-rate")
                    + ") does not match this instance's configuration (" + configured.fingerprintWithoutSeed()
                    + ", expected-size " + sizing.expectedSize() + ", error-rate " + sizing.errorRate()
                    + "); calls pass through until it is rebuilt with this configuration");
            case MISSING -> {
                if (previous.status != SharedFilterStatus.NOT_STARTED) {
                    logger.warn("Filter '" + name + "': its bitmap is gone from Redis (flushed, evicted or deleted);"
                            + " calls pass through until it is rebuilt from its key source");
                }
            }
            case STALE -> logger.warn("Filter '" + name + "' is marked stale in Redis (" + updated.storeStale
                    + "); calls pass through until it is rebuilt");
            case READY -> {
                if (previous.status != SharedFilterStatus.NOT_STARTED) {
                    logger.info("Filter '" + name + "' is ready (generation " + meta.get("generation") + ")");
                }
            }
            default -> {
            }
        }
    }

    private void bitmapMissing(RedisFilterView seen) {
        if (view == seen && seen.status == SharedFilterStatus.READY) {
            RedisFilterView missing = seen.withStatus(SharedFilterStatus.MISSING, keys);
            view = missing;
            reportChange(seen, missing, Map.of());
        }
    }

    private RedisFilterIdentity requireLive() {
        RedisFilterIdentity live = view.live;
        if (live == null) {
            throw new IllegalStateException("Filter '" + name + "' has no complete bitmap in Redis (" + status() + ")");
        }
        return live;
    }

    // ---------------------------------------------------------------- building a generation

    /** The configured shape, keeping the stored seed when the stored filter (or a build under way) has that shape. */
    private RedisFilterIdentity configuredTarget(RedisFilterView current) {
        if (current.live != null && current.live.sameShape(configured)) {
            return current.live;
        }
        if (current.next != null && current.next.sameShape(configured)) {
            return current.next;
        }
        return configured;
    }

    /** Reads the key source into a local bit array of the target's size and seed. */
    private Built readKeySource(RedisFilterIdentity target) {
        LocalBloomFilter bits = LocalBloomFilter.create(sizingOf(target), target.seed());
        KeyFeed source = feed;
        if (source == null) {
            throw new IllegalStateException("Filter '" + name + "' has no key source on this instance");
        }
        long keys = source.feed(bits::putAll);
        return new Built(bits.sizing(), bits::copyWords, keys);
    }

    /**
     * Builds generation {@code target} while holding the lock: announces it (from then on every add reaches
     * it), waits the grace period, builds the bits in this JVM (from the key source, or a snapshot), uploads
     * them and swaps them in, shard 0 last so that instances see the new generation only once every shard has
     * it. At {@link #STARTUP} the building and upload wait for those of the backend's other filters.
     */
    @Override
    public void onBuilt(BuildListener listener) {
        buildListener = listener;
    }

    private long buildHoldingLock(String reason, RedisFilterIdentity target,
            Function<RedisFilterIdentity, Built> build) {
        building.set(true);
        long renewEvery = Math.max(1, settings.lockTtl().toMillis() / 3);
        ScheduledFuture<?> renewal = scheduler.scheduleWithFixedDelay(lock::renew, renewEvery, renewEvery,
                TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        RedisFilterIdentity previousLive = view.live;
        boolean done = false;
        String failure = "the build did not finish";
        try {
            logger.info("Filter '" + name + "': building " + target.fingerprintWithoutSeed() + " in Redis (" + reason + ")");
            StaleMark markBefore = sentMark.get();
            long dropsBefore = pending.dropped();
            long[] staleMarks = generations.begin(target);
            refresh(); // this instance's own adds reach the new generation from now on
            pending.recovered(dropsBefore); // keys dropped before now are in the key source read below
            sentMark.compareAndSet(markBefore, null);
            sleep(settings.rebuildGrace());
            // Filters that start together wait out their graces together, but hold their bits in the heap one at
            // a time, as the startup heap check assumes.
            boolean oneAtATime = reason.equals(STARTUP);
            if (oneAtATime) {
                startupBuilds.acquireUninterruptibly();
            }
            Built built;
            long[] uploadedBits;
            try {
                built = build.apply(target);
                uploadedBits = generations.upload(target, built.words);
            }
            finally {
                if (oneAtATime) {
                    startupBuilds.release();
                }
            }
            boolean stillStale = generations.swap(target, built.sizing, previousLive, staleMarks, uploadedBits);
            refresh();
            logger.info("Filter '" + name + "': " + reason + " done, " + built.keys + " keys in "
                    + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms; generation " + target.fingerprintWithoutSeed()
                    + " is live");
            if (stillStale) {
                logger.warn("Filter '" + name + "': an instance marked it stale while it was being built, for adds"
                        + " the key source read may have missed; it stays stale and is rebuilt again");
            }
            done = true;
            buildListener.built(reason.equals(STARTUP), built.keys, start, null);
            return built.keys;
        }
        catch (RuntimeException ex) {
            failure = String.valueOf(ex.getMessage());
            throw ex;
        }
        finally {
            if (!done) {
                buildListener.built(reason.equals(STARTUP), 0, start, failure);
            }
            // Whatever ended the build, a checked exception thrown sneakily by a key source included, the next
            // attempt waits: a source that always fails is not read again and again at every refresh.
            if (done) {
                failedBuilds = 0;
            }
            else {
                failedBuilds++;
                nextBuildAttempt = System.nanoTime() + retryPause().toNanos();
            }
            renewal.cancel(false);
            lock.release();
            building.set(false);
        }
    }

    /** Pause before the next build after {@link #failedBuilds} failures: the lock's TTL, doubled each time, up to 10 min. */
    private Duration retryPause() {
        Duration pause = settings.lockTtl().multipliedBy(1L << Math.min(Math.max(failedBuilds - 1, 0), 5));
        return pause.compareTo(MAX_RETRY_PAUSE) > 0 ? MAX_RETRY_PAUSE : pause;
    }

    private FilterSizing sizingOf(RedisFilterIdentity identity) {
        return new FilterSizing(sizing.expectedSize(), sizing.errorRate(), identity.blockCount(), identity.hashCount());
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + status() + ", " + configured.fingerprintWithoutSeed() + "]";
    }

    private record WriteResult(long changed, List<Object> unwritten) {
    }

    /** What a filter shares with the other filters of its {@link RedisFilterBackend}. */
    record Shared(RedisCommands checks, RedisCommands commands, ScheduledExecutorService scheduler,
            ExecutorService builders, RecoveryProbe recovery, Semaphore startupBuilds) {
    }

    /** A stale mark owed to Redis; each loss its own instance, so that one owed meanwhile is not taken as sent. */
    private record OwedMark(String reason) {
    }

    /** A stale mark this instance sent, and the dropped adds it covers. */
    private record StaleMark(long drops) {
    }

    /**
     * Bits built in this JVM for a new generation: the size they were built for, a way to copy them out a
     * chunk at a time, and how many keys went into them.
     */
    private record Built(FilterSizing sizing, RedisGenerations.WordCopier words, long keys) {
    }
}
