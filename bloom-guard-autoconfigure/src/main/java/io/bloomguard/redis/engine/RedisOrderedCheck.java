package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.RedisPort;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One check of keys a near copy in step with Redis lacks ({@link RedisNearCopy#ordered}): after a barrier sent once the
 * check began ({@code RedisAddFeed.barrier}), the copy holds every add Redis processed before the check began, so
 * its answer is Redis's, unless it fell out of step meanwhile (a drop, a swap) or the build it mirrors is no longer
 * live ({@link RedisLiveProbe}: a {@code FLUSHALL} that dropped no connection), in which case the keys go to Redis.
 *
 * <p>Usage: {@code Boolean answer = check.answer(key, check.barrier(port, key).get()); if (answer == null) ... Redis ...}
 */
final class RedisOrderedCheck {

    private final RedisAddFeed feed;
    private final RedisFilterIdentity identity;
    private final RedisFilterKeys keys;
    private final long epoch;
    private final BooleanSupplier inStep;
    private final CopiedBits bits;
    private final LongAdder rejected;
    private final LongAdder answered;
    /** Whether the build the copy mirrors is still live, asked after the check began ({@link RedisLiveProbe}). */
    private final Function<RedisPort, CompletableFuture<Boolean>> stillLive;

    RedisOrderedCheck(RedisAddFeed feed, RedisFilterIdentity identity, RedisFilterKeys keys, long epoch,
            BooleanSupplier inStep, CopiedBits bits, LongAdder rejected, LongAdder answered,
            Function<RedisPort, CompletableFuture<Boolean>> stillLive) {
        this.feed = feed;
        this.identity = identity;
        this.keys = keys;
        this.epoch = epoch;
        this.inStep = inStep;
        this.bits = bits;
        this.rejected = rejected;
        this.answered = answered;
        this.stillLive = stillLive;
    }

    /**
     * Barriers sent after this call on the connections that carry the shards of {@code checked}, and a probe on
     * {@code port} that the copy's build is still live: {@code true} once they all came back and it is, {@code false}
     * when a subscriber connection dropped first, or the build is gone (a {@code FLUSHALL} publishes nothing).
     */
    public CompletableFuture<Boolean> barrier(RedisPort port, List<?> checked) {
        if (identity.shards() == 1) {
            return withProbe(port, feed.barrier(keys.adds(0)));
        }
        java.util.Set<Integer> shards = new java.util.TreeSet<>();
        for (Object key : checked) {
            shards.add(identity.locate(key).shard());
        }
        List<CompletableFuture<Boolean>> barriers = shards.stream().map(shard -> feed.barrier(keys.adds(shard)))
                .toList();
        return withProbe(port, CompletableFuture.allOf(barriers.toArray(CompletableFuture[]::new))
                .thenApply(done -> barriers.stream().allMatch(CompletableFuture::join)));
    }

    /** {@link #barrier(RedisPort, List)} for one key. */
    public CompletableFuture<Boolean> barrier(RedisPort port, Object key) {
        return withProbe(port, (identity.shards() == 1) ? feed.barrier(keys.adds(0))
                : feed.barrier(keys.adds(identity.locate(key).shard())));
    }

    private CompletableFuture<Boolean> withProbe(RedisPort port, CompletableFuture<Boolean> barrier) {
        return barrier.thenCombine(stillLive.apply(port), (passed, live) -> passed && live);
    }

    /**
     * The copy's answer for {@code key} once the barrier came back ({@code passed}), or {@code null} when it cannot
     * be trusted: the barrier did not pass, or the copy fell out of step.
     */
    public @Nullable Boolean answer(Object key, boolean passed) {
        if (!passed || feed.epoch() != epoch || !inStep.getAsBoolean()) {
            return null;
        }
        boolean present = bits.mightContain(key);
        (present ? answered : rejected).increment();
        return present;
    }

    /** {@link #answer} for each key, or {@code null} for all of them. */
    public boolean @Nullable [] answers(List<?> keys, boolean passed) {
        if (!passed || feed.epoch() != epoch || !inStep.getAsBoolean()) {
            return null;
        }
        boolean[] present = bits.mightContainAll(keys);
        for (boolean each : present) {
            (each ? answered : rejected).increment();
        }
        return present;
    }
}
