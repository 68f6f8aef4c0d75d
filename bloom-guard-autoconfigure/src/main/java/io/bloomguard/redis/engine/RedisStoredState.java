package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this instance last read of its filter in Redis, as one {@link RedisFilterView}: the metadata of shard 0, and
 * whether the live generation's bitmaps all exist. {@link #refresh()} reads it again; a check or an add that finds a
 * bitmap gone says so at once with {@link #bitmapMissing}. Each change of status is logged once.
 *
 * <p>Usage: {@code state.refresh(); RedisFilterIdentity live = state.view().live;}
 */
final class RedisStoredState {

    private static final Log logger = LogFactory.getLog(RedisStoredState.class);

    /** The metadata field that records when an instance found the filter wiped from the store. */
    private static final String LOST_AT = "lost-at";

    /**
     * KEYS: meta of shard 0. ARGV: when. Records the loss unless the metadata names a live generation or records one
     * already. Only commands of {@code RedisAcl.COMMANDS}: a script refused one would make the filter ACCESS_DENIED.
     */
    private static final LuaScript RECORD_LOSS = LuaScript.of("record-loss", LuaScript.Result.INTEGER, """
            if redis.call('HGET', KEYS[1], 'live') or redis.call('HGET', KEYS[1], 'lost-at') then
              return 0
            end
            redis.call('HSET', KEYS[1], 'lost-at', ARGV[1])
            return 1
            """);

    private final String name;
    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final List<BlockKind> kinds;
    private final RedisFilterKeys keys;
    private final RedisFilterCommands commands;
    private final RedisStaleMarks marks;
    private volatile RedisFilterView view = RedisFilterView.NOT_STARTED;
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    /** Refreshes begun, in order: a read that began before the view's own is older, and is dropped. */
    private final AtomicLong refreshesBegun = new AtomicLong();
    /** Which refresh the view is from (guarded by this; changed with {@link #view}, never across a round trip). */
    private long viewRefresh;
    /** Set once this instance has seen a live generation whose bitmaps all existed. */
    private volatile boolean seenLive;
    /** The last size a grown filter was found to have: worked out once, not at every refresh. */
    private volatile @Nullable FilterSizing lastGrown;

    /** @param kinds every kind a stored generation may be of */
    public RedisStoredState(String name, FilterSizing sizing, RedisFilterIdentity configured,
            List<BlockKind> kinds, RedisFilterKeys keys, RedisFilterCommands commands, RedisStaleMarks marks) {
        this.name = name;
        this.kinds = kinds;
        this.sizing = sizing;
        this.configured = configured;
        this.keys = keys;
        this.commands = commands;
        this.marks = marks;
    }

    /** The last view read: immutable, so that one check or add works with one view however the filter changes. */
    public RedisFilterView view() {
        return view;
    }

    /** Reads the metadata of shard 0 and whether the live bitmaps exist. */
    public void refresh() {
        long begun = refreshesBegun.incrementAndGet();
        // Taken before the read: a mark sent before it is in what it reads.
        RedisStaleMarks.Sent mark = marks.lastSent();
        Map<String, String> meta = commands.call(port -> port.hashGetAll(keys.meta(0)));
        RedisFilterIdentity live = RedisFilterIdentity.parse(meta.get("live"), kinds);
        RedisFilterIdentity next = RedisFilterIdentity.parse(meta.get("next"), kinds);
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
            marks.madeUpFor(mark, mark.drops());
        }
        SharedFilterStatus status;
        FilterSizing liveSizing = (live != null) ? usableSizing(live, meta.get("expected-size"), meta.get("error-rate"))
                : null;
        int layerCount = layerCount(meta.get("layers"));
        String liveBuild = meta.get("generation") + "@" + meta.get("loaded-at");
        Generation generation = (live != null) ? live.kind().open(live, liveSizing, layerCount, keys, liveBuild)
                : null;
        if (generation != null && liveSizing != null && !generation.readable()) {
            liveSizing = null; // more layers than this version can size: it cannot read them all
        }
        RedisFilterIdentity liveNamed = live;
        if (generation != null && !allExist(generation.dataKeys())) {
            live = null;
        }
        if (live == null) {
            status = (next != null) ? SharedFilterStatus.LOADING : SharedFilterStatus.MISSING;
        }
        else if (liveSizing == null) {
            status = SharedFilterStatus.MISMATCHED;
        }
        else if (stale != null) {
            status = SharedFilterStatus.STALE;
        }
        else {
            status = SharedFilterStatus.READY;
        }
        boolean stored = liveNamed != null || meta.containsKey("live") || meta.containsKey("generation")
                || meta.containsKey(LOST_AT);
        RedisFilterView updated = new RedisFilterView(status, live, liveNamed, liveSizing, layerCount, generation,
                next, stale, liveBuild, epochOf(meta), stored);
        RedisFilterView previous;
        synchronized (this) {
            if (begun < viewRefresh) {
                // A refresh that began later has published already: this read may predate a swap (its bitmaps
                // since deleted, so it found them MISSING) and must not replace what came after it.
                return;
            }
            viewRefresh = begun;
            previous = view;
            view = updated;
        }
        reportChange(previous, updated, meta);
        if (live != null) {
            seenLive = true;
        }
        else if (!stored && seenLive) {
            recordLoss();
        }
    }

    /**
     * Whether anything of the filter was ever stored, as far as this instance can tell: the metadata shows it, or this
     * instance saw it live. See {@link io.bloomguard.core.SharedBloomFilter#storedBefore()}.
     */
    public boolean storedBefore() {
        return seenLive || view.stored;
    }

    /**
     * The store was wiped (a {@code FLUSHALL}, a restart without persistence) after this instance saw the filter live:
     * the metadata records the loss, so that an instance started later knows the filter was stored, and does not
     * create a filter filled by puts alone empty again without an operator's confirmation.
     */
    private void recordLoss() {
        try {
            commands.call(port -> port.eval(RECORD_LOSS, List.of(keys.meta(0)), List.of(Instant.now().toString())));
        }
        catch (RuntimeException ex) {
            logger.debug("Filter '" + name + "': recording that its store was wiped failed; the next refresh tries"
                    + " again", ex);
        }
    }

    /**
     * The build epoch stored now in shard 0's metadata, read at once (one round trip), not from the last view.
     *
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not answer
     */
    public long storedEpoch() {
        return epochOf(commands.call(port -> port.hashGetAll(keys.meta(0))));
    }

    private static long epochOf(Map<String, String> meta) {
        String epoch = meta.get("epoch");
        try {
            return (epoch != null) ? Long.parseLong(epoch) : 0L;
        }
        catch (NumberFormatException ex) {
            return 0L;
        }
    }

    /**
     * The size {@code live} holds keys at, if this instance can use it: the configured shape, or the shape
     * {@code growth: rebuild} gave it (sized for more keys at the configured error rate, on as many shards as
     * configured). The metadata's expected size and error rate must give that shape exactly, so a filter stored with
     * another configuration is still a mismatch. {@code null} when this instance cannot use it.
     */
    private @Nullable FilterSizing usableSizing(RedisFilterIdentity live, @Nullable String storedSize,
            @Nullable String storedRate) {
        if (live.sameShape(configured)) {
            return live.sizing(sizing);
        }
        long capacity;
        double errorRate;
        try {
            capacity = Long.parseLong(String.valueOf(storedSize));
            errorRate = Double.parseDouble(String.valueOf(storedRate));
        }
        catch (NumberFormatException ex) {
            return null;
        }
        if (capacity <= sizing.expectedSize() || errorRate != sizing.errorRate()) {
            return null;
        }
        FilterSizing grown = lastGrown;
        if (grown == null || grown.expectedSize() != capacity) {
            try {
                grown = FilterSizing.of(capacity, errorRate);
            }
            catch (IllegalArgumentException ex) {
                return null;
            }
            lastGrown = grown;
        }
        try {
            return RedisFilterIdentity.of(grown, live.seed(), configured.shards(), configured.kind()).sameShape(live)
                    ? grown : null;
        }
        catch (IllegalArgumentException ex) { // grown past what its kind can store: it is not what is live
            return null;
        }
    }

    /** The metadata's {@code layers}: 1 when absent (a filter that does not grow by layers), 0 when unreadable. */
    private static int layerCount(@Nullable String stored) {
        if (stored == null) {
            return 1;
        }
        try {
            return Integer.parseInt(stored);
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    /**
     * Reads the stored state again on {@code executor}, once however many ask before it has: a check found a layer
     * this view does not know, and answers "might contain" for every key until the view has it.
     */
    public void refreshSoon(Executor executor) {
        if (!refreshQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(() -> {
                refreshQueued.set(false);
                try {
                    refresh();
                }
                catch (RuntimeException ex) {
                    logger.debug("Filter '" + name + "': reading the new layer failed; the next refresh reads it", ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            refreshQueued.set(false); // shutting down
        }
    }

    /**
     * A command found the live bitmap gone (flushed, evicted or deleted) while this instance read {@code seen}: the
     * filter is {@code MISSING} until a refresh begun after this reads the store again. A refresh of the same build
     * that published meanwhile, or publishes later, may have read it before it went: it does not undo this.
     */
    public void bitmapMissing(RedisFilterView seen) {
        Generation generation = seen.generation;
        if (generation != null) {
            bitmapMissing(generation);
        }
    }

    /** {@link #bitmapMissing(RedisFilterView)} for a command that read {@code seen}. */
    public void bitmapMissing(Generation seen) {
        RedisFilterView current;
        RedisFilterView missing;
        synchronized (this) {
            current = view;
            Generation live = current.generation;
            if (current.status != SharedFilterStatus.READY || live == null || !live.sameBuild(seen)) {
                return;
            }
            missing = current.withStatus(SharedFilterStatus.MISSING);
            view = missing;
            // A refresh still under way may have read the bitmap before it went: only one begun from now on counts.
            viewRefresh = refreshesBegun.incrementAndGet();
        }
        reportChange(current, missing, Map.of());
    }

    /** What an operator may see of the stored filter, as last read: never the seed. */
    public SharedFilterDetails details(boolean checksBreakerOpen, boolean commandsBreakerOpen,
            SharedFilterDetails.@Nullable NearCopy nearCopy, SharedFilterDetails.Losses losses) {
        RedisFilterIdentity live = view.live;
        List<String> liveKeys = new ArrayList<>();
        if (live != null) {
            for (int shard = 0; shard < live.shards(); shard++) {
                liveKeys.add(keys.bitsWithoutSeed(shard, live));
            }
        }
        return new SharedFilterDetails((live != null) ? live.fingerprintWithoutSeed() : null, liveKeys,
                checksBreakerOpen, commandsBreakerOpen, configured.shards(), nearCopy, losses);
    }

    /** Whether every key of a generation exists: each shard's bitmap, and each layer's. */
    private boolean allExist(List<String> dataKeys) {
        List<CompletableFuture<Long>> replies = new ArrayList<>(dataKeys.size());
        for (String key : dataKeys) {
            replies.add(commands.send(port -> port.exists(key)));
        }
        boolean all = true;
        for (CompletableFuture<Long> reply : replies) {
            all &= commands.await(reply) == 1L;
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
}
