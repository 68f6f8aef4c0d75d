package io.bloomguard.redis.engine;

import io.bloomguard.core.SharedBloomFilter.CheckLatencyListener;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.KeyCheck;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Checks keys against the live generation, each as its kind reads it ({@link Generation}, timed, through the checks'
 * breaker): one {@code GETRANGE} of the key's block, or one script over every layer of a filter that grows by
 * layers; for a batch, one script per shard, or one per key where the kind checks keys apart. With no live
 * generation, or when the bitmap turns out to be gone, a key "might be contained": a missing bitmap never means
 * "absent".
 *
 * <p>With a {@link RedisNearCopy}, a key the copy holds is answered at once, and only the keys it lacks are checked
 * in Redis, whose answer alone decides; what Redis answered is merged into the copy.
 *
 * <p>Usage: {@code boolean maybe = reader.mightContain(42L);}
 */
final class RedisBitReader {

    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    /** {@code null} when the filter keeps no copy: then a check never asks for one. */
    private final @Nullable RedisNearCopy nearCopy;
    private final KeyCheck.Events events;
    private volatile CheckLatencyListener checkLatency = CheckLatencyListener.NO_OP;

    /** @param refresher where a view that lacks a layer a check found is read again */
    RedisBitReader(RedisStoredState state, RedisFilterCommands commands, @Nullable RedisNearCopy nearCopy,
            Executor refresher) {
        this.state = state;
        this.commands = commands;
        this.nearCopy = nearCopy;
        this.events = events(state, nearCopy, refresher);
    }

    /** What a check reports: to the stored state, and the blocks and keys it read to the copy when there is one. */
    private static KeyCheck.Events events(RedisStoredState state, @Nullable RedisNearCopy nearCopy,
            Executor refresher) {
        return new KeyCheck.Events() {
            @Override
            public void bitmapMissing(Generation seen) {
                state.bitmapMissing(seen);
            }

            @Override
            public void layerAdded() {
                state.refreshSoon(refresher);
            }

            @Override
            public void blockRead(Generation seen, long block, byte[] bytes) {
                if (nearCopy != null) {
                    nearCopy.learnBlock(seen, block, bytes);
                }
            }

            @Override
            public void keyHeld(Generation seen, Object key) {
                if (nearCopy != null) {
                    nearCopy.learnKey(seen, key); // all its positions are in Redis
                }
            }
        };
    }

    public boolean mightContain(Object key) {
        RedisFilterView current = state.view();
        if (current.live == null) {
            return true;
        }
        RedisNearCopy copy = nearCopy;
        if (copy != null) {
            Boolean copied = fromCopy(copy, current, key);
            if (copied != null) {
                return copied;
            }
            copy.sent(1);
        }
        Generation live = current.generation;
        if (live == null || !live.readable()) {
            return true;
        }
        return inRedis(live.check(key, events));
    }

    private <R> boolean inRedis(KeyCheck<R> check) {
        long start = System.nanoTime();
        // Sent apart from awaited: a check the open breaker refuses never reached Redis, and is not timed.
        CompletableFuture<R> reply = commands.sendCheck(check::send);
        try {
            return check.answer(commands.awaitCheck(reply));
        }
        finally {
            checkLatency.checked(System.nanoTime() - start);
        }
    }

    /**
     * The near copy's answer: {@code true} when it holds the key, the answer after a barrier when it is in step,
     * {@code null} when Redis must answer.
     */
    private @Nullable Boolean fromCopy(RedisNearCopy copy, RedisFilterView current, Object key) {
        Boolean leased = copy.leased(current, key); // first: one read of the bits, after the lease
        if (leased != null) {
            return leased;
        }
        if (copy.holds(current, key)) {
            return true;
        }
        RedisOrderedCheck ordered = copy.ordered(current);
        if (ordered == null) {
            return null;
        }
        long start = System.nanoTime();
        CompletableFuture<Boolean> barrier = commands.sendCheck(port -> ordered.barrier(port, key));
        try {
            return ordered.answer(key, commands.awaitCheck(barrier));
        }
        finally {
            checkLatency.checked(System.nanoTime() - start);
        }
    }

    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        RedisFilterView current = state.view();
        RedisNearCopy copy = nearCopy;
        Boolean leased = (copy != null && current.live != null) ? copy.leased(current, key) : null;
        if (leased != null) {
            return CompletableFuture.completedFuture(leased);
        }
        if (current.live == null || (copy != null && copy.holds(current, key))) {
            return CompletableFuture.completedFuture(true);
        }
        RedisOrderedCheck ordered = (copy != null) ? copy.ordered(current) : null;
        if (ordered == null) {
            return readAsync(current, key);
        }
        return timed(commands.checkAsync(port -> ordered.barrier(port, key)), passed -> ordered.answer(key, passed))
                .thenCompose(answer -> (answer != null) ? CompletableFuture.completedFuture(answer)
                        : readAsync(current, key));
    }

    /** The key's block (every layer's, for a filter that grows by layers) read in Redis. */
    private CompletableFuture<Boolean> readAsync(RedisFilterView current, Object key) {
        if (nearCopy != null) {
            nearCopy.sent(1);
        }
        Generation live = current.generation;
        if (live == null || !live.readable()) {
            return CompletableFuture.completedFuture(true);
        }
        return inRedisAsync(live.check(key, events));
    }

    private <R> CompletableFuture<Boolean> inRedisAsync(KeyCheck<R> check) {
        return timed(commands.checkAsync(check::send), check::answer);
    }

    private <T, R> CompletableFuture<R> timed(CompletableFuture<T> reply, Function<T, R> answer) {
        long start = System.nanoTime();
        if (reply.isCompletedExceptionally()) {
            return reply.thenApply(answer); // not sent (breaker open, no connection): nothing to time
        }
        CheckLatencyListener listener = checkLatency;
        return reply.whenComplete((bytes, failure) -> listener.checked(System.nanoTime() - start))
                .thenApply(answer);
    }

    public void onCheckLatency(CheckLatencyListener listener) {
        this.checkLatency = listener;
    }

    /** Every key's check sent before any answer is awaited: one round trip for a batch. */
    public boolean[] mightContainAll(List<?> checked) {
        RedisFilterView current = state.view();
        Generation live = current.generation;
        if (live == null || !live.readable()) {
            boolean[] answers = new boolean[checked.size()];
            Arrays.fill(answers, true);
            return answers;
        }
        RedisNearCopy copy = nearCopy;
        if (copy == null) {
            return live.checkAll(checked, new boolean[checked.size()], commands, events);
        }
        boolean[] held = copy.holdsAll(current, checked);
        RedisOrderedCheck ordered = copy.ordered(current);
        if (ordered != null) {
            boolean[] copied = afterBarrier(copy, current, ordered, checked, held);
            if (copied != null) {
                return copied;
            }
        }
        int lacking = 0;
        for (boolean hit : held) {
            lacking += hit ? 0 : 1; // the near copy holds the others: only these go to Redis
        }
        copy.sent(lacking);
        return live.checkAll(checked, held, commands, events);
    }

    /**
     * The keys a copy in step lacks, answered by the copy under its leases, or after one barrier for them all;
     * {@code null} when the copy fell out of step meanwhile, and Redis must answer.
     */
    private boolean @Nullable [] afterBarrier(RedisNearCopy copy, RedisFilterView current, RedisOrderedCheck ordered,
            List<?> checked, boolean[] held) {
        List<Object> lacking = new ArrayList<>();
        for (int i = 0; i < held.length; i++) {
            if (!held[i]) {
                lacking.add(checked.get(i));
            }
        }
        if (lacking.isEmpty()) {
            return held;
        }
        boolean[] copied = copy.leasedAll(current, lacking);
        if (copied == null) {
            copied = afterOneBarrier(ordered, lacking);
        }
        if (copied == null) {
            return null;
        }
        boolean[] answers = held.clone();
        for (int i = 0, j = 0; i < answers.length; i++) {
            if (!held[i]) {
                answers[i] = copied[j++];
            }
        }
        return answers;
    }

    private boolean @Nullable [] afterOneBarrier(RedisOrderedCheck ordered, List<Object> lacking) {
        long start = System.nanoTime();
        boolean[] copied;
        try {
            copied = ordered.answers(lacking,
                    commands.awaitCheck(commands.sendCheck(port -> ordered.barrier(port, lacking))));
        }
        finally {
            checkLatency.checked(System.nanoTime() - start);
        }
        return copied;
    }
}
