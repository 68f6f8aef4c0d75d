package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.core.SharedBloomFilter.BuildListener;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Builds generations of one filter in Redis, holding the {@link RedisLoadLock} so that it is built once across all
 * instances: the load at startup, a rebuild (on demand, or when the stored filter is gone or stale), an imported
 * snapshot. The bits are built in this JVM, from the key source this instance joined with, and
 * {@link RedisGenerations} moves them in; a build that fails is tried again after a {@link BuildBackoff}.
 *
 * <p>Its five ways in (the load at startup, a rebuild, a growth, a takeover, an import) share one lock-and-build
 * sequence whose steps must keep their order: {@link RedisLockedBuild}.
 *
 * <p>Usage: {@code loader.join(feed); ... StartOutcome outcome = loader.loadAtStart(); ... loader.buildIfNeeded();}
 */
final class RedisFilterLoader {

    private static final Log logger = LogFactory.getLog(RedisFilterLoader.class);

    private final String name;
    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final EngineSettings settings;
    private final RedisStoredState state;
    private final DroppedAdds dropped;
    private final RedisStaleMarks marks;
    private final RedisLoadLock lock;
    private final RedisGenerations generations;
    /** The backend's threads, and the startup builds' turns. */
    private final RedisBuildThreads backend;
    private final RedisLockedBuild locked;
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
            RedisCommands commands, EngineSettings settings, RedisStoredState state, DroppedAdds dropped,
            RedisStaleMarks marks, RedisBuildThreads backend) {
        this.name = name;
        this.sizing = sizing;
        this.configured = configured;
        this.settings = settings;
        this.state = state;
        this.dropped = dropped;
        this.marks = marks;
        this.lock = new RedisLoadLock(name, keys, commands, settings);
        this.generations = new RedisGenerations(name, keys, commands, settings.commandTimeout(), lock.owner());
        this.backend = backend;
        this.backoff = new BuildBackoff(settings.lockTtl());
        this.locked = new RedisLockedBuild(name, settings, state, dropped, marks, lock, generations, backend, backoff);
    }

    /** This instance joins the filter with {@code keys} to build it from, or with none: then it only follows. */
    void join(@Nullable KeyFeed keys) {
        this.feed = keys;
        this.joined = true;
    }

    public boolean hasKeySource() {
        return joined && feed != null;
    }

    /** Whether this instance knows the filter to be filled by puts alone: its key source gives no key back. */
    boolean fillsByPutsAlone() {
        KeyFeed source = feed;
        return joined && source != null && !source.complete();
    }

    /**
     * At startup, with a key source and no usable stored filter: loads it here unless another instance does. A load
     * its key source refuses (a filter filled by puts alone, stored before, is not created empty again without an
     * operator's confirmation: the refusal is logged where it is made) leaves it waiting, as for a loader.
     */
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
        try {
            locked.build(RedisLockedBuild.STARTUP, rebuildTarget(state.view()), this::readKeySource);
        }
        catch (RebuildRefusedException ex) {
            return StartOutcome.WAITING_FOR_A_LOADER;
        }
        return StartOutcome.LOADED_HERE;
    }

    /** See {@link io.bloomguard.redis.RedisBloomFilter#rebuild()}. */
    public long rebuild() {
        lockForRebuild();
        return locked.build("rebuild", rebuildTarget(state.view()), this::readKeySource);
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
        return locked.build("growth", target, this::readKeySource);
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
        locked.build("import", target, unused -> new RedisLockedBuild.Built(snapshot.sizing(),
                (from, into, count) -> System.arraycopy(words, from, into, 0, count), 0));
    }

    /** The bits of generation {@code live}, of size {@code liveSizing}, with their size and seed. */
    public FilterSnapshot export(RedisFilterIdentity live, FilterSizing liveSizing) {
        refuseSnapshotsOfCounters();
        return new FilterSnapshot(live.layoutVersion(), liveSizing, live.seed(), generations.download(live));
    }

    /** Snapshots hold bits: a counting filter moves between backends by a rebuild from its key source. */
    private void refuseSnapshotsOfCounters() {
        if (!configured.kind().snapshots()) {
            throw new UnsupportedOperationException("Filter '" + name + "' is a " + configured.type() + " filter:"
                    + " a snapshot holds bits of bloom-guard's own layout, which " + (configured.layout().serverBuild()
                            != null ? "the server's native filter does not use" : "cannot hold counters")
                    + "; rebuild it from its key source instead");
        }
    }

    /** For the maintenance task: (re)builds the filter in the background when it is gone or stale. */
    void buildIfNeeded() {
        if (feed == null) {
            return; // no key source here: an instance that has one builds it
        }
        RedisFilterView current = state.view();
        boolean needed = current.status == SharedFilterStatus.MISSING || current.status == SharedFilterStatus.LOADING
                || current.storeStale != null || dropped.overflowed();
        if (!needed || locked.running() || !backoff.due() || !tryLockStillNeeded()) {
            return;
        }
        current = state.view();
        String reason = (current.status == SharedFilterStatus.LOADING) ? "takeover from a loader that stopped"
                : (current.status == SharedFilterStatus.MISSING) ? "bitmap missing" : "stale";
        RedisFilterView seen = current;
        backend.builders().execute(() -> {
            try {
                locked.build(reason, rebuildTarget(seen), this::readKeySource);
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
        locked.onBuilt(listener);
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
                || current.storeStale != null || dropped.overflowed();
        if (!needed) {
            lock.release();
        }
        return needed;
    }

    private RedisBuildTarget rebuildTarget(RedisFilterView current) {
        return RedisBuildTarget.forRebuild(current, configured, sizing);
    }

    /** Reads the key source into a local bit (or counter) array of the target's size and seed. */
    private RedisLockedBuild.Built readKeySource(RedisBuildTarget target) {
        KeyFeed source = feed;
        if (source == null) {
            throw new IllegalStateException("Filter '" + name + "' has no key source on this instance");
        }
        RedisFilterIdentity identity = target.identity();
        if (identity.layout().serverBuild() != null) {
            long[] sent = generations.fill(identity, source);
            return RedisLockedBuild.Built.inRedis(target.sizing(), sent[1], new long[] {sent[0]});
        }
        LocalWords read = identity.layout().read(source, target.sizing(), identity.seed());
        FilterSizing outgrownTo = read.outgrownTo();
        return new RedisLockedBuild.Built(read.sizing(), read.words(), read.keys(),
                (outgrownTo != null) ? target.resizedTo(outgrownTo) : null, null);
    }
}
