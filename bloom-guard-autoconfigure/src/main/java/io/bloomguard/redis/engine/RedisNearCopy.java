package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * This instance's copy of the live generation's bits: a key the copy holds is answered "might contain" with no round
 * trip; a key it lacks is checked in Redis exactly as without a copy, unless a {@link RedisCopyInStep} keeps the copy
 * in step with Redis ({@code redis.near-copy: ordered}): then the copy answers it after a barrier, or, with
 * {@code leased}, with no command at all while it holds a lease ({@link RedisLeases}). Otherwise the copy never decides
 * a rejection.
 *
 * <p>Why it cannot cause a false negative: within one build of a generation, bits are only ever set, so every bit
 * of the copy is set in Redis too, and the copy only ever says "present". A copy that lags behind Redis lacks bits,
 * which costs a round trip and nothing else. The one bit that may be set here first is an add's own (see
 * {@link #learnKeys}): set before Redis has it, or even if Redis never takes it, it lets calls for that key
 * through, which is what a failed add does anyway (the filter is not trusted until the add is delivered).
 *
 * <p>How it keeps up with Redis:
 * <ul>
 * <li>when this instance sees another build go live (at its refresh), the copy of the old one is dropped at once
 * (its bits may hold keys the rebuild left out) and the new one is read whole in the background, in chunks of
 * {@value RedisWholeRead#CHUNK_WORDS} words (1 MiB); until that read is done, checks go to Redis;</li>
 * <li>the 64-byte block every check reads from Redis is merged in, and a key a batch check finds in Redis is set,
 * so a key added by another instance costs this one a single round trip, the first time it is checked here;</li>
 * <li>keys this instance adds are set as they are sent;</li>
 * <li>the whole bitmap is read again every {@value RedisWholeRead#REFRESHES_PER_READ} refresh intervals (10 minutes by default):
 * a filter's size in bytes per period, per instance, for keys added elsewhere and not checked here yet.</li>
 * </ul>
 *
 * <p>Usage: {@code if (nearCopy.holds(view, key)) return true; ...; nearCopy.learnBlock(view, block, bytes);}
 */
final class RedisNearCopy {

    /** Reads the copy whole, in the background. */
    private final RedisWholeRead wholeRead;
    /** With {@code redis.near-copy: ordered}: keeps the copy in step, to answer absent keys too; else {@code null}. */
    private final @Nullable RedisCopyInStep inStep;
    /** The copy of the build this instance last saw go live; {@code null} while there is none, or when off. */
    private volatile @Nullable RedisCopiedBuild copy;
    private volatile boolean closed;
    /** The copy now, for a lease to check its copy is still the filter's: made once, not per lookup. */
    private final java.util.function.Supplier<@Nullable RedisCopiedBuild> currentCopy = () -> copy;
    private final LongAdder answeredHere = new LongAdder();
    private final LongAdder sentToRedis = new LongAdder();

    /**
     * @param inStep     with one, the copy is kept in step with Redis and answers absent keys too; {@code null}
     *                   leaves them to Redis
     * @param configured the configured generation, whose size the startup heap check counted; a copy is held of a
     *                   live generation of that size, or of the size it grew to ({@code growth: rebuild})
     * @param reads      where whole reads run, away from the maintenance thread the backend's filters share
     */
    RedisNearCopy(@Nullable RedisCopyInStep inStep, String name, RedisFilterIdentity configured,
            RedisFilterCommands commands, Executor reads, Duration refreshInterval) {
        long maxBlocks = configured.layout().maxLocalBlocks();
        if (configured.blockCount() > maxBlocks) {
            throw new IllegalArgumentException("Filter '" + name + "': a near copy is held in the heap, which takes"
                    + " at most " + maxBlocks + " blocks (16 GiB); " + configured.fingerprintWithoutSeed() + " needs "
                    + configured.blockCount());
        }
        this.inStep = inStep;
        this.wholeRead = new RedisWholeRead(this.inStep, name, commands, reads, refreshInterval, () -> copy);
    }

    /**
     * The check of keys the copy lacks, by a barrier, when the copy is in step with Redis for {@code view}'s build;
     * {@code null} sends them to Redis.
     */
    public @Nullable RedisOrderedCheck ordered(RedisFilterView view) {
        RedisCopiedBuild current = (inStep != null) ? answeringFor(view) : null;
        return (current != null) ? inStep.check(current, () -> copy, answeredHere) : null;
    }

    /**
     * A leased copy's answer for {@code key} while the lease on its shard holds ({@link RedisLeases}): {@code true} when
     * the copy holds it, {@code false} when it lacks it; {@code null} when no lease holds, or the copy is not leased.
     */
    public @Nullable Boolean leased(RedisFilterView view, Object key) {
        RedisLeases leases = (inStep != null) ? inStep.leases() : null;
        RedisCopiedBuild current = (leases != null) ? answeringFor(view) : null;
        if (current == null) {
            return null;
        }
        Boolean answer = leases.answer(current, key, currentCopy);
        if (answer == Boolean.TRUE) {
            answeredHere.increment();
        }
        return answer;
    }

    /** {@link #leased} for each key, or {@code null} for all of them. */
    public boolean @Nullable [] leasedAll(RedisFilterView view, List<?> lacking) {
        RedisLeases leases = (inStep != null) ? inStep.leases() : null;
        RedisCopiedBuild current = (leases != null) ? answeringFor(view) : null;
        return (current != null) ? leases.answers(current, lacking, currentCopy) : null;
    }

    /**
     * Whether the copy holds {@code key} for the build {@code view} shows live: then it "might be contained", with no
     * round trip. {@code false} sends the check to Redis, as does a copy still being read or of another build.
     */
    public boolean holds(RedisFilterView view, Object key) {
        RedisCopiedBuild current = answeringFor(view);
        if (current != null && current.bits.mightContain(key)) {
            answeredHere.increment();
            return true;
        }
        return false;
    }

    /** Counts keys the copy could not answer, sent to Redis. */
    public void sent(int keys) {
        sentToRedis.add(keys);
    }

    /** {@link #holds} for each key; all {@code false} while the copy does not answer for {@code view}. */
    public boolean[] holdsAll(RedisFilterView view, List<?> keys) {
        RedisCopiedBuild current = answeringFor(view);
        if (current == null) {
            return new boolean[keys.size()];
        }
        boolean[] held = current.bits.mightContainAll(keys);
        long here = 0;
        for (boolean hit : held) {
            here += hit ? 1 : 0;
        }
        answeredHere.add(here);
        return held;
    }

    /** Merges block {@code block} (numbered across all shards) as a check read it from the bitmap of {@code seen}. */
    public void learnBlock(Generation seen, long block, byte[] bytes) {
        RedisCopiedBuild current = following(seen);
        if (current != null) {
            current.bits.learnBlock(block, bytes);
        }
    }

    /**
     * Sets the bits of keys that Redis holds for {@code view}'s build, or that this instance is adding to it: set
     * before Redis has them, they only let calls for those keys through (see the class comment).
     */
    public void learnKeys(RedisFilterView view, Iterable<?> keys) {
        Generation live = view.generation;
        RedisCopiedBuild current = (live != null) ? following(live) : null;
        if (current != null) {
            for (Object key : keys) {
                current.bits.learnKey(key);
            }
        }
    }

    /** Sets the bits of a key a check found all of in {@code seen}'s bitmap. */
    public void learnKey(Generation seen, Object key) {
        RedisCopiedBuild current = following(seen);
        if (current != null) {
            current.bits.learnKey(key);
        }
    }

    /**
     * For the maintenance task, after each refresh of {@code view}: starts a copy of a build that went live (dropping
     * the old one), or reads the held one again when it is due.
     */
    public void follow(RedisFilterView view) {
        if (closed) {
            return;
        }
        RedisFilterIdentity live = view.live;
        RedisLeases leases = (inStep != null) ? inStep.leases() : null;
        if (leases != null && live != null) {
            leases.maintain(live.shards());
        }
        RedisCopiedBuild current = copy;
        FilterSizing liveSizing = view.liveSizing;
        if (live == null || view.liveBuild == null || liveSizing == null
                || liveSizing.blockCount() > live.layout().maxLocalBlocks()) {
            // Nothing live, a shape this instance cannot use (MISMATCHED), or one grown past what a heap holds.
            copy = null;
            return;
        }
        Generation generation = view.generation;
        if (generation == null || !generation.readable()) {
            copy = null; // layers this instance cannot read yet
            return;
        }
        if (current == null || !current.follows(view)) {
            copy = null; // unreachable before the new one is allocated: the heap holds one copy, not two
            current = new RedisCopiedBuild(generation, generation.newCopy(liveSizing), leases);
            copy = current; // before the read: adds and blocks checked meanwhile go in too
        }
        boolean outOfStep = inStep != null && inStep.wantsRead(current);
        if (System.nanoTime() - current.nextRead >= 0 || outOfStep) {
            wholeRead.start(view, current); // due, or out of step with the adds (a drop, a swap, a bitmap gone)
        }
    }

    /** Drops the copy: the filter is closed. */
    public void close() {
        closed = true;
        copy = null;
    }

    /** What the endpoint shows. */
    public SharedFilterDetails.NearCopy details() {
        RedisCopiedBuild current = copy;
        boolean barrier = inStep != null && inStep.inStep(current);
        String absentKeys = !barrier ? "store" : (inStep.leases() != null && current.leases.anyHeld()) ? "lease"
                : "barrier";
        return new SharedFilterDetails.NearCopy(
                (current != null) ? current.identity.fingerprintWithoutSeed() + "#" + current.buildNumber : null,
                current != null && current.answering, (current != null) ? current.lastRead : null,
                answeredHere.sum(), sentToRedis.sum(), absentKeys,
                (inStep != null) ? inStep.outOfStepSince(current) : null,
                (inStep != null) ? inStep.outOfStepReason(current) : null,
                (inStep != null) ? inStep.rejectedHere() : 0, (current != null) ? current.bits.bytes() : 0);
    }

    private @Nullable RedisCopiedBuild answeringFor(RedisFilterView view) {
        RedisCopiedBuild current = copy;
        return (current != null && current.answering && current.follows(view)) ? current : null;
    }

    /** The copy of {@code seen}'s build, read whole yet or not. */
    private @Nullable RedisCopiedBuild following(Generation seen) {
        RedisCopiedBuild current = copy;
        return (current != null && current.follows(seen)) ? current : null;
    }
}
