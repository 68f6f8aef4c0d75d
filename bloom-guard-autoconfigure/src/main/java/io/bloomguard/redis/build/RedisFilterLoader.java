package io.bloomguard.redis.build;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.SharedBloomFilter.BuildListener;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.client.RedisCommands;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStaleMarks;
import io.bloomguard.redis.state.RedisStoredState;
import io.bloomguard.redis.write.PendingAdds;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Builds generations of one filter in Redis, holding the {@link RedisLoadLock} so that it is built once across all
 * instances: the load at startup, a rebuild (on demand, or when the stored filter is gone or stale), an imported
 * snapshot. The bits are built in this JVM, from the key source this instance joined with, and
 * {@link RedisGenerations} moves them in; a build that fails is tried again after a {@link BuildBackoff}.
 *
 * <p>It runs past 300 lines because its five ways in (the load at startup, a rebuild, a growth, a takeover, an
 * import) share one lock-and-build sequence whose steps must keep their order; the Redis side of each step is
 * {@link RedisLoadLock}'s and {@link RedisGenerations}'.
 *
 * <p>Usage: {@code loader.join(feed); ... StartOutcome outcome = loader.loadAtStart(); ... loader.buildIfNeeded();}
 */
public final class RedisFilterLoader {

    /** The filter's own log, whatever part of it speaks: where users set its level. */
    private static final Log logger = LogFactory.getLog(RedisFilterLoader.class);

    /** The reason of a build at startup: see {@link #buildHoldingLock}. */
    private static final String STARTUP = "startup";

    private final String name;
    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final RedisBackendSettings settings;
    private final RedisStoredState state;
    private final PendingAdds pending;
    private final RedisStaleMarks marks;
    private final RedisLoadLock lock;
    private final RedisGenerations generations;
    /** The backend's threads, and the startup builds' turns. */
    private final RedisBuildThreads backend;
    private final AtomicBoolean building = new AtomicBoolean();
    private volatile BuildListener buildListener = (startup, keys, startNanos, failure) -> { };
    /** The key source this instance (re)builds the filter from; null when it has none and only follows. */
    private volatile @Nullable KeyFeed feed = KeyFeed.EMPTY;
    /**
     * Set when this instance joins the filter, handing it its key source (or none): before that the feed above is a
     * placeholder, and a rebuild from it would swap in an empty filter that every instance trusts.
     */
    private volatile boolean joined;
    private final BuildBackoff backoff;

    /** @param commands the filter's commands, through the breaker, for the lock and the generations */
    public RedisFilterLoader(String name, FilterSizing sizing, RedisFilterIdentity configured, RedisFilterKeys keys,
            RedisCommands commands, RedisBackendSettings settings, RedisStoredState state, PendingAdds pending,
            RedisStaleMarks marks, RedisBuildThreads backend) {
        this.name = name;
        this.sizing = sizing;
        this.configured = configured;
        this.settings = settings;
        this.state = state;
        this.pending = pending;
        this.marks = marks;
        this.lock = new RedisLoadLock(name, keys, commands, settings);
        this.generations = new RedisGenerations(name, keys, commands, settings.commandTimeout(), lock.owner());
        this.backend = backend;
        this.backoff = new BuildBackoff(settings.lockTtl());
    }

    /** This instance joins the filter with {@code keys} to build it from, or with none: then it only follows. */
    void join(@Nullable KeyFeed keys) {
        this.feed = keys;
        this.joined = true;
    }

    public boolean hasKeySource() {
        return joined && feed != null;
    }

    /** At startup, with a key source and no usable stored filter: loads it here unless another instance does. */
    StartOutcome loadAtStart() {
        if (!tryLockStillNeeded()) {
            if (state.view().status == SharedFilterStatus.READY) {
                return StartOutcome.ALREADY_LOADED;
            }
            if (state.view().status == SharedFilterStatus.MISMATCHED) {
                return StartOutcome.MISMATCHED;
            }
            logger.info("Filter '" + name + "' is being loaded by another instance; calls pass through until it is"
                    + " ready");
            return StartOutcome.LOADING_ELSEWHERE;
        }
        buildHoldingLock(STARTUP, rebuildTarget(state.view()), this::readKeySource);
        return StartOutcome.LOADED_HERE;
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#rebuild()}. */
    public long rebuild() {
        lockForRebuild();
        return buildHoldingLock("rebuild", rebuildTarget(state.view()), this::readKeySource);
    }

    /**
     * See {@link io.bloomguard.redis.RedisBloomFilter#rebuild(long)}: the new generation is sized for {@code expectedSize} keys at the
     * configured error rate, on as many shards as configured (more if one Redis string would not hold a shard), with
     * the stored seed. Its metadata records that size, which tells the other instances it is this filter grown.
     */
    public long rebuild(long expectedSize) {
        if (expectedSize <= sizing.expectedSize()) {
            return rebuild(); // never smaller than configured: the other instances would not recognise it
        }
        lockForRebuild();
        RedisBuildTarget target;
        try {
            target = RedisBuildTarget.grown(state.view(), configured, sizing, expectedSize);
        }
        catch (IllegalArgumentException ex) {
            lock.release();
            throw ex;
        }
        return buildHoldingLock("growth", target, this::readKeySource);
    }

    private void lockForRebuild() {
        if (!joined) {
            throw new IllegalStateException("Filter '" + name + "' has not started yet (it is handed its key source"
                    + " when the application starts); rebuild it once it has");
        }
        if (feed == null) {
            throw new IllegalStateException("Filter '" + name + "' has no key source on this instance; rebuild it"
                    + " from an instance that has one");
        }
        state.refresh();
        if (!lock.tryLock()) {
            throw new RebuildInProgressException("Filter '" + name + "' is being loaded by another instance; try"
                    + " again when it is done");
        }
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#importSnapshot}. */
    public void importSnapshot(FilterSnapshot snapshot) {
        refuseSnapshotsOfCounters();
        state.refresh();
        if (!lock.tryLock()) {
            throw new RebuildInProgressException("Filter '" + name + "' is being loaded by another instance");
        }
        RedisBuildTarget target = RedisBuildTarget.forSnapshot(snapshot, configured);
        // The snapshot's own words are uploaded: no second copy of a possibly large array.
        long[] words = snapshot.words();
        buildHoldingLock("import", target, unused -> new Built(snapshot.sizing(),
                (from, into, count) -> System.arraycopy(words, from, into, 0, count), 0));
    }

    /** The bits of generation {@code live}, of size {@code liveSizing}, with their size and seed. */
    public FilterSnapshot export(RedisFilterIdentity live, FilterSizing liveSizing) {
        refuseSnapshotsOfCounters();
        return new FilterSnapshot(live.layoutVersion(), liveSizing, live.seed(), generations.download(live));
    }

    /** Snapshots hold bits: a counting filter moves between backends by a rebuild from its key source. */
    private void refuseSnapshotsOfCounters() {
        if (configured.counting()) {
            throw new UnsupportedOperationException("Filter '" + name + "' is a counting filter: its snapshots would"
                    + " hold bits, not counters; rebuild it from its key source instead");
        }
    }

    /** For the maintenance task: (re)builds the filter in the background when it is gone or stale. */
    void buildIfNeeded() {
        if (feed == null) {
            return; // no key source here: an instance that has one builds it
        }
        RedisFilterView current = state.view();
        boolean needed = current.status == SharedFilterStatus.MISSING || current.status == SharedFilterStatus.LOADING
                || current.storeStale != null || pending.overflowed();
        if (!needed || building.get() || !backoff.due() || !tryLockStillNeeded()) {
            return;
        }
        current = state.view();
        String reason = (current.status == SharedFilterStatus.LOADING) ? "takeover from a loader that stopped"
                : (current.status == SharedFilterStatus.MISSING) ? "bitmap missing" : "stale";
        RedisFilterView seen = current;
        backend.builders().execute(() -> {
            try {
                buildHoldingLock(reason, rebuildTarget(seen), this::readKeySource);
            }
            catch (RebuildRefusedException ex) {
                logger.debug("Filter '" + name + "': " + reason + " rebuild refused (" + ex.getMessage() + ");"
                        + " asking again in " + backoff.pause().toSeconds() + " s");
            }
            catch (Exception ex) { // checked ones too, thrown sneakily by a key source
                logger.error("Filter '" + name + "': " + reason + " rebuild failed; retrying in "
                        + backoff.pause().toSeconds() + " s", ex);
            }
        });
    }

    public void onBuilt(BuildListener listener) {
        buildListener = listener;
    }

    /**
     * Takes the load lock if the filter still needs loading once it is held: the loader may have finished
     * between this instance's last look and the lock, and the filter must not be loaded twice.
     */
    private boolean tryLockStillNeeded() {
        if (!lock.tryLock()) {
            return false;
        }
        state.refresh();
        RedisFilterView current = state.view();
        boolean needed = current.status != SharedFilterStatus.READY && current.status != SharedFilterStatus.MISMATCHED
                || current.storeStale != null || pending.overflowed();
        if (!needed) {
            lock.release();
        }
        return needed;
    }

    private RedisBuildTarget rebuildTarget(RedisFilterView current) {
        return RedisBuildTarget.forRebuild(current, configured, sizing);
    }

    /** Reads the key source into a local bit (or counter) array of the target's size and seed. */
    private Built readKeySource(RedisBuildTarget target) {
        KeyFeed source = feed;
        if (source == null) {
            throw new IllegalStateException("Filter '" + name + "' has no key source on this instance");
        }
        if (target.identity().counting()) {
            LocalCountingFilter counters = LocalCountingFilter.create(target.sizing(), target.identity().seed());
            long keys = source.feed(counters::putAll);
            return new Built(counters.sizing(), counters::copyCounterWords, keys);
        }
        LocalBloomFilter bits = LocalBloomFilter.create(target.sizing(), target.identity().seed());
        long keys = source.feed(bits::putAll);
        return new Built(bits.sizing(), bits::copyWords, keys, target.outgrownBy(keys, bits.setBitCount()));
    }

    /**
     * Builds generation {@code goal} while holding the lock: announces it (from then on every add reaches
     * it), waits the grace period, builds the bits in this JVM (from the key source, or a snapshot), uploads
     * them and swaps them in, shard 0 last so that instances see the new generation only once every shard has
     * it. At {@link #STARTUP} the building and upload wait for those of the backend's other filters.
     */
    private long buildHoldingLock(String reason, RedisBuildTarget goal, Function<RedisBuildTarget, Built> build) {
        building.set(true);
        long renewEvery = Math.max(1, settings.lockTtl().toMillis() / 3);
        ScheduledFuture<?> renewal = backend.scheduler().scheduleWithFixedDelay(lock::renew, renewEvery, renewEvery,
                TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        RedisFilterView before = state.view();
        RedisFilterIdentity previousLive = before.live;
        RedisFilterIdentity target = goal.identity();
        boolean done = false;
        String failure = "the build did not finish";
        try {
            long[] staleMarks;
            Built built;
            long[] uploadedBits;
            while (true) {
                target = goal.identity();
                logger.info("Filter '" + name + "': building " + target.fingerprintWithoutSeed() + " in Redis ("
                        + reason + ")");
                RedisStaleMarks.Sent markBefore = marks.lastSent();
                long dropsBefore = pending.dropped();
                RedisFilterIdentity abandoned = state.view().next;
                staleMarks = generations.begin(target);
                if (abandoned != null && !abandoned.equals(target)) {
                    generations.discardNext(abandoned); // a build of another size that this one replaces
                }
                state.refresh(); // this instance's own adds reach the new generation from now on
                marks.madeUpFor(markBefore, dropsBefore); // keys dropped before now are in the key source read below
                sleep(settings.rebuildGrace());
                // Filters that start together wait out their graces together, but hold their bits in the heap one
                // at a time, as the startup heap check assumes.
                boolean oneAtATime = reason.equals(STARTUP);
                if (oneAtATime) {
                    backend.startupBuilds().acquireUninterruptibly();
                }
                try {
                    built = build.apply(goal);
                    if (built.outgrown != null) {
                        // A filter that grows by layers found more keys than its layer 0 holds: built again larger
                        // (the key source read again) rather than swapped in past its error rate.
                        logger.info("Filter '" + name + "': " + built.keys + " keys outgrow "
                                + target.fingerprintWithoutSeed() + "; building it for " + built.outgrown.sizing()
                                        .expectedSize() + " keys");
                        goal = built.outgrown;
                        continue;
                    }
                    uploadedBits = generations.upload(target, built.words);
                }
                finally {
                    if (oneAtATime) {
                        backend.startupBuilds().release();
                    }
                }
                break;
            }
            boolean stillStale = generations.swap(target, built.sizing, previousLive, before.layerCount, staleMarks,
                    uploadedBits);
            state.refresh();
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
                backoff.succeeded();
            }
            else {
                backoff.failed();
            }
            renewal.cancel(false);
            lock.release();
            building.set(false);
        }
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

    /**
     * Bits built in this JVM for a new generation: the size they were built for, a way to copy them out a
     * chunk at a time, how many keys went into them, and, when a filter that grows by layers holds too many for
     * them, the larger generation to build instead.
     */
    private record Built(FilterSizing sizing, RedisGenerations.WordCopier words, long keys,
            @Nullable RedisBuildTarget outgrown) {

        Built(FilterSizing sizing, RedisGenerations.WordCopier words, long keys) {
            this(sizing, words, keys, null);
        }
    }
}
