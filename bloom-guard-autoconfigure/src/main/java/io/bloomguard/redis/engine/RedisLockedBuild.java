package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.BuildListener;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The one lock-and-build sequence that {@link RedisFilterLoader}'s ways in (the load at startup, a rebuild, a growth,
 * a takeover, an import) share, run while this instance holds the {@link RedisLoadLock}: its steps must keep their
 * order; the Redis side of each is {@link RedisLoadLock}'s and {@link RedisGenerations}'. It renews the lock while it
 * runs, tells the build listener how it ended, and has the {@link BuildBackoff} count a failure.
 *
 * <p>Usage: {@code if (lock.tryLock()) { long keys = locked.build("rebuild", target, this::readKeySource); }}
 */
final class RedisLockedBuild {

    private static final Log logger = LogFactory.getLog(RedisLockedBuild.class);

    /** The reason of a build at startup: see {@link #build}. */
    static final String STARTUP = "startup";

    private final String name;
    private final EngineSettings settings;
    private final RedisStoredState state;
    private final DroppedAdds dropped;
    private final RedisStaleMarks marks;
    private final RedisLoadLock lock;
    private final RedisGenerations generations;
    /** The backend's threads, and the startup builds' turns. */
    private final RedisBuildThreads backend;
    private final BuildBackoff backoff;
    private final AtomicBoolean building = new AtomicBoolean();
    private volatile BuildListener buildListener = (startup, keys, startNanos, failure) -> { };

    RedisLockedBuild(String name, EngineSettings settings, RedisStoredState state, DroppedAdds dropped,
            RedisStaleMarks marks, RedisLoadLock lock, RedisGenerations generations, RedisBuildThreads backend,
            BuildBackoff backoff) {
        this.name = name;
        this.settings = settings;
        this.state = state;
        this.dropped = dropped;
        this.marks = marks;
        this.lock = lock;
        this.generations = generations;
        this.backend = backend;
        this.backoff = backoff;
    }

    /** Whether a build is under way on this instance. */
    boolean running() {
        return building.get();
    }

    void onBuilt(BuildListener listener) {
        buildListener = listener;
    }

    /**
     * Builds generation {@code goal} while holding the lock: announces it (from then on every add reaches
     * it), waits the grace period, builds the bits in this JVM (from the key source, or a snapshot), uploads
     * them and swaps them in, shard 0 last so that instances see the new generation only once every shard has
     * it. At {@link #STARTUP} the building and upload wait for those of the backend's other filters.
     */
    long build(String reason, RedisBuildTarget goal, Function<RedisBuildTarget, Built> build) {
        building.set(true);
        // This taking's token, read once: a later taking by this instance (another build) must not lend it its own.
        long fence = lock.fence();
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
                long dropsBefore = dropped.dropped();
                RedisFilterIdentity abandoned = state.view().next;
                refuseAnotherFamily(previousLive, target);
                staleMarks = generations.begin(target, goal.sizing(), fence);
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
                    uploadedBits = (built.inRedis != null) ? built.inRedis
                            : generations.upload(target, Objects.requireNonNull(built.words));
                }
                finally {
                    if (oneAtATime) {
                        backend.startupBuilds().release();
                    }
                }
                break;
            }
            boolean stillStale = generations.swap(target, built.sizing, previousLive, before.layerCount, staleMarks,
                    uploadedBits, fence);
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
    record Built(FilterSizing sizing, LocalWords.@Nullable Copier words, long keys,
            @Nullable RedisBuildTarget outgrown, long @Nullable [] inRedis) {

        Built(FilterSizing sizing, LocalWords.Copier words, long keys) {
            this(sizing, words, keys, null, null);
        }

        /**
         * Keys sent into a generation built inside Redis.
         *
         * @param added per shard, the keys new to it, for the swap to check it against
         */
        static Built inRedis(FilterSizing sizing, long keys, long[] added) {
            return new Built(sizing, null, keys, null, added);
        }
    }

    /**
     * A rebuild never turns a filter from a kind built in the JVM into one built inside Redis, or back: the adds of
     * instances that still read the other would not reach the generation being built, whose keys would then be
     * missing once it is swapped in. The stored filter is deleted first (the next start builds it afresh).
     */
    private void refuseAnotherFamily(@Nullable RedisFilterIdentity live, RedisFilterIdentity target) {
        if (live != null && (live.layout().serverBuild() == null) != (target.layout().serverBuild() == null)) {
            throw new IllegalStateException("Filter '" + name + "' is stored as " + live.fingerprintWithoutSeed()
                    + " and configured as " + target.fingerprintWithoutSeed() + ": a rebuild does not change a filter"
                    + " between bloom-guard's bitmap and the server's native filter while instances add to it; stop"
                    + " the instances, delete its keys (those named with {" + name + "}) and start them with the new"
                    + " redis.kind");
        }
    }
}
