package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RedisNearCopy}'s bits (or counters, or layers) of one build of the live generation, with where it stands:
 * read whole
 * yet, and for a copy that reads in order ({@link RedisCopyInStep}), in step with Redis within which subscriber epoch.
 */
final class RedisCopiedBuild {

    final RedisFilterIdentity identity;
    final String build;
    final String buildNumber;
    /** The generation it copies, as the refresh that started it opened it. */
    final Generation generation;
    final CopiedBits bits;
    /** With {@code redis.near-copy: leased}, the leases on its shards; else {@code null}. */
    final @Nullable RedisCopyLeases leases;
    /** Set once it was read whole: from then on it answers. */
    volatile boolean answering;
    volatile @Nullable Instant lastRead;
    volatile long nextRead = System.nanoTime();
    /** {@code System.nanoTime()} before which a failed subscription is not tried again. */
    volatile long nextSync = System.nanoTime();
    /** The epoch it was read whole in, in step with Redis since; -1 when out of step. */
    volatile long syncedEpoch = -1;
    /** Counts the times it fell out of step: a read during which it did is not in step. */
    final AtomicInteger changes = new AtomicInteger();
    /** The Redis key of each part (see {@link CopiedBits}): a shard's bitmap, or a layer's. */
    private final String[] bitmaps;
    private final int layerCount;
    /** Asks whether this build is still live in Redis; made by the first lookup that answers from it. */
    private volatile @Nullable RedisLiveProbe probe;
    /** While a whole read is under way: the adds that arrived, applied again after it (see CopiedBits). */
    private volatile @Nullable Queue<Runnable> reading;

    /** A copy of {@code live}, a readable generation, with leases when {@code leases} is given. */
    RedisCopiedBuild(Generation live, CopiedBits bits, @Nullable RedisLeases leases) {
        this.generation = live;
        this.identity = live.identity();
        this.build = live.build();
        this.buildNumber = build.substring(0, Math.max(0, build.indexOf('@')));
        this.bits = bits;
        this.layerCount = live.layerCount();
        this.bitmaps = live.dataKeys().toArray(new String[0]);
        this.leases = (leases != null) ? leases.forCopy(identity.shards()) : null;
    }

    /** Whether it is a copy of the build {@code view} shows live, with as many layers. */
    boolean follows(RedisFilterView view) {
        Generation live = view.generation;
        return live != null && follows(live);
    }

    /** Whether it is a copy of {@code seen}'s build, with as many layers. */
    boolean follows(Generation seen) {
        return build.equals(seen.build()) && identity.equals(seen.identity()) && layerCount == seen.layerCount();
    }

    /** Asks whether this build is still live in Redis ({@link RedisOrderedCheck}), with the filter's {@code keys}. */
    RedisLiveProbe probe(RedisFilterKeys keys) {
        RedisLiveProbe made = probe;
        if (made == null) {
            synchronized (this) {
                made = probe;
                if (made == null) {
                    made = new RedisLiveProbe(this, keys);
                    probe = made;
                }
            }
        }
        return made;
    }

    /** Parts it is read in: shards, or layers. */
    int parts() {
        return bitmaps.length;
    }

    /** The Redis key of part {@code part}. */
    String bitmap(int part) {
        return bitmaps[part];
    }

    /** Part whose Redis key is {@code bitmap}, or -1. */
    int shardOf(String bitmap) {
        for (int shard = 0; shard < bitmaps.length; shard++) {
            if (bitmaps[shard].equals(bitmap)) {
                return shard;
            }
        }
        return -1;
    }

    /** An add Redis processed, in order: positions of part {@code shard}, {@code positions[from]} on. */
    void added(int shard, String[] positions, int from) {
        Runnable add = () -> bits.added(shard, positions, from);
        add.run();
        Queue<Runnable> replay = reading;
        if (replay != null) {
            replay.add(add); // the whole read may write over it: applied again after (counters only rise by it)
        }
    }

    /** A remove Redis processed, in order; left out while a whole read is under way, which may hold it already. */
    void removed(int shard, String[] positions, int from) {
        if (reading == null) {
            bits.removed(shard, positions, from);
        }
    }

    /** A whole read begins: from now on adds are kept to be applied again, removes left out. */
    void readBegins() {
        reading = new ConcurrentLinkedQueue<>();
    }

    /** The whole read is over, and every change published before its last chunk arrived: adds applied again. */
    void readEnds() {
        Queue<Runnable> replay = reading;
        reading = null;
        if (replay != null) {
            replay.forEach(Runnable::run);
        }
    }

    /** Out of step: adds may be missing. On the client's thread, before the barrier that follows is answered. */
    void markOutOfStep() {
        changes.incrementAndGet(); // first: a read that finishes meanwhile sees it, or its mark is overwritten
        syncedEpoch = -1;
        if (leases != null) {
            leases.revokeAll();
        }
    }

    /**
     * After a whole read that began at {@code changesBefore} within {@code epoch}: in step, unless it fell out of step
     * meanwhile. Returns whether it is.
     */
    boolean markInStep(long epoch, int changesBefore) {
        syncedEpoch = epoch;
        if (changes.get() != changesBefore) {
            syncedEpoch = -1; // see markOutOfStep
            return false;
        }
        return true;
    }
}
