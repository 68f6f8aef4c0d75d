package io.bloomguard.redis.read;

import io.bloomguard.core.SharedBloomFilter.CheckLatencyListener;
import io.bloomguard.redis.client.RedisFilterCommands;
import io.bloomguard.redis.copy.RedisNearCopy;
import io.bloomguard.redis.copy.RedisOrderedCheck;
import io.bloomguard.redis.layout.RedisKeyCheck;
import io.bloomguard.redis.layout.RedisLayout;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStoredState;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Checks keys against the live generation, each as its {@link RedisLayout} reads it (timed, through the checks'
 * breaker): one {@code GETRANGE} of the key's block, or one script over every layer of a filter that grows by
 * layers; for a batch, one script per shard, or one per key where the layout checks keys apart. With no live
 * generation, or when the bitmap turns out to be gone, a key "might be contained": a missing bitmap never means
 * "absent".
 *
 * <p>With a {@link RedisNearCopy}, a key the copy holds is answered at once, and only the keys it lacks are checked
 * in Redis, whose answer alone decides; what Redis answered is merged into the copy.
 *
 * <p>Usage: {@code boolean maybe = reader.mightContain(42L);}
 */
public final class RedisBitReader {

    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    private final RedisNearCopy nearCopy;
    private final RedisKeyCheck.Events events;
    private volatile CheckLatencyListener checkLatency = CheckLatencyListener.NO_OP;

    /** @param refresher where a view that lacks a layer a check found is read again */
    public RedisBitReader(RedisStoredState state, RedisFilterCommands commands, RedisNearCopy nearCopy,
            Executor refresher) {
        this.state = state;
        this.commands = commands;
        this.nearCopy = nearCopy;
        this.events = new RedisKeyCheck.Events() {
            @Override
            public void bitmapMissing(RedisFilterView view) {
                state.bitmapMissing(view);
            }

            @Override
            public void layerAdded() {
                state.refreshSoon(refresher);
            }

            @Override
            public void blockRead(RedisFilterView view, long block, byte[] bytes) {
                nearCopy.learnBlock(view, block, bytes);
            }
        };
    }

    public boolean mightContain(Object key) {
        RedisFilterView current = state.view();
        if (current.live == null) {
            return true;
        }
        Boolean copied = fromCopy(current, key);
        if (copied != null) {
            return copied;
        }
        nearCopy.sent(1);
        RedisLayout layout = current.live.layout();
        if (!layout.checkable(current)) {
            return true;
        }
        return inRedis(layout.check(current, key, events));
    }

    private <R> boolean inRedis(RedisKeyCheck<R> check) {
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
    private @Nullable Boolean fromCopy(RedisFilterView current, Object key) {
        if (nearCopy.holds(current, key)) {
            return true;
        }
        RedisOrderedCheck ordered = nearCopy.ordered(current);
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
        if (current.live == null || nearCopy.holds(current, key)) {
            return CompletableFuture.completedFuture(true);
        }
        RedisOrderedCheck ordered = nearCopy.ordered(current);
        if (ordered == null) {
            return readAsync(current, key);
        }
        return timed(commands.checkAsync(port -> ordered.barrier(port, key)), passed -> ordered.answer(key, passed))
                .thenCompose(answer -> (answer != null) ? CompletableFuture.completedFuture(answer)
                        : readAsync(current, key));
    }

    /** The key's block (every layer's, for a filter that grows by layers) read in Redis. */
    private CompletableFuture<Boolean> readAsync(RedisFilterView current, Object key) {
        nearCopy.sent(1);
        RedisLayout layout = current.live.layout();
        if (!layout.checkable(current)) {
            return CompletableFuture.completedFuture(true);
        }
        return inRedisAsync(layout.check(current, key, events));
    }

    private <R> CompletableFuture<Boolean> inRedisAsync(RedisKeyCheck<R> check) {
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

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    public boolean[] mightContainAll(List<?> checked) {
        boolean[] answers = new boolean[checked.size()];
        RedisFilterView current = state.view();
        RedisFilterIdentity live = current.live;
        if (live == null || !live.layout().checkable(current)) {
            Arrays.fill(answers, true);
            return answers;
        }
        boolean[] held = nearCopy.holdsAll(current, checked);
        RedisOrderedCheck ordered = nearCopy.ordered(current);
        if (ordered != null) {
            boolean[] copied = afterBarrier(ordered, checked, held);
            if (copied != null) {
                return copied;
            }
        }
        LuaScript checkAll = live.layout().checkAll();
        if (checkAll == null) {
            return mightContainAllApart(current, checked, held);
        }
        Map<Integer, List<Integer>> indexesByShard = new LinkedHashMap<>();
        Map<Integer, List<String>> argsByShard = new LinkedHashMap<>();
        for (int i = 0; i < answers.length; i++) {
            if (held[i]) {
                answers[i] = true; // the near copy holds it: only the keys it lacks go to Redis
                continue;
            }
            RedisFilterIdentity.KeyBits located = live.locate(checked.get(i));
            indexesByShard.computeIfAbsent(located.shard(), s -> new ArrayList<>()).add(i);
            List<String> args = argsByShard.computeIfAbsent(located.shard(),
                    s -> new ArrayList<>(List.of(Integer.toString(live.hashCount()))));
            for (long offset : located.offsets()) {
                args.add(Long.toString(offset));
            }
        }
        nearCopy.sent(indexesByShard.values().stream().mapToInt(List::size).sum());
        Map<Integer, CompletableFuture<Object>> replies = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<String>> entry : argsByShard.entrySet()) {
            String bitmap = current.liveKeys[entry.getKey()];
            replies.put(entry.getKey(), commands.send(port -> port.eval(checkAll, List.of(bitmap),
                    entry.getValue())));
        }
        for (Map.Entry<Integer, CompletableFuture<Object>> reply : replies.entrySet()) {
            byte[] bits = (byte[]) commands.await(reply.getValue());
            List<Integer> indexes = indexesByShard.get(reply.getKey());
            // '-' is the script's "no bitmap"; a shard holding one key of the batch answers one character too.
            boolean missing = bits.length > 0 && bits[0] == '-';
            if (missing) {
                state.bitmapMissing(current);
            }
            for (int j = 0; j < indexes.size(); j++) {
                answers[indexes.get(j)] = missing || bits[j] == '1';
                if (!missing && bits[j] == '1') {
                    nearCopy.learnKeys(current, List.of(checked.get(indexes.get(j)))); // all its bits are in Redis
                }
            }
        }
        return answers;
    }

    /**
     * The keys a copy in step lacks, answered by the copy after one barrier for them all; {@code null} when the copy
     * fell out of step meanwhile, and Redis must answer.
     */
    private boolean @Nullable [] afterBarrier(RedisOrderedCheck ordered, List<?> checked, boolean[] held) {
        List<Object> lacking = new ArrayList<>();
        for (int i = 0; i < held.length; i++) {
            if (!held[i]) {
                lacking.add(checked.get(i));
            }
        }
        if (lacking.isEmpty()) {
            return held;
        }
        long start = System.nanoTime();
        boolean[] copied;
        try {
            copied = ordered.answers(lacking,
                    commands.awaitCheck(commands.sendCheck(port -> ordered.barrier(port, lacking))));
        }
        finally {
            checkLatency.checked(System.nanoTime() - start);
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

    /** One check per key (a filter that grows by layers), all sent before any answer is awaited: one round trip. */
    private boolean[] mightContainAllApart(RedisFilterView current, List<?> checked, boolean[] held) {
        RedisLayout layout = current.live.layout();
        List<@Nullable BooleanSupplier> answered = new ArrayList<>(checked.size());
        int sent = 0;
        for (int i = 0; i < held.length; i++) {
            if (held[i]) {
                answered.add(null); // answered by the copy
                continue;
            }
            answered.add(sendInBatch(layout.check(current, checked.get(i), events)));
            sent++;
        }
        nearCopy.sent(sent);
        boolean[] answers = new boolean[checked.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = held[i] || answered.get(i).getAsBoolean();
        }
        return answers;
    }

    private <R> BooleanSupplier sendInBatch(RedisKeyCheck<R> check) {
        CompletableFuture<R> reply = commands.send(check::send);
        return () -> check.answer(commands.await(reply));
    }
}
