package io.bloomguard.redis.read;

import io.bloomguard.core.SharedBloomFilter.CheckLatencyListener;
import io.bloomguard.redis.LuaScript;
import io.bloomguard.redis.client.RedisFilterCommands;
import io.bloomguard.redis.copy.RedisNearCopy;
import io.bloomguard.redis.copy.RedisOrderedCheck;
import io.bloomguard.redis.layout.RedisCounterScripts;
import io.bloomguard.redis.layout.RedisLayerScripts;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.layout.RedisScripts;
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
import java.util.function.Function;

/**
 * Checks keys against the live generation: one {@code GETRANGE} of the key's block per key (64 bytes of bits, or 256
 * of a counting filter's counters; timed, through the checks' breaker), one {@link RedisScripts#CHECK_ALL} (or
 * {@link RedisCounterScripts#CHECK_ALL}) per shard for a batch. With no live generation, or when
 * the bitmap turns out to be gone, a key "might be contained": a missing bitmap never means "absent".
 *
 * <p>With a {@link RedisNearCopy}, a key the copy holds is answered at once, and only the keys it lacks are checked
 * in Redis, whose answer alone decides; what Redis answered is merged into the copy.
 *
 * <p>A filter that grows by layers ({@link RedisLayers}) is checked with one {@link RedisLayerScripts#CHECK} per key,
 * which reads every layer's block.
 *
 * <p>Usage: {@code boolean maybe = reader.mightContain(42L);}
 */
public final class RedisBitReader {

    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    private final RedisNearCopy nearCopy;
    private final Executor refresher;
    private volatile CheckLatencyListener checkLatency = CheckLatencyListener.NO_OP;

    /** @param refresher where a view that lacks a layer a check found is read again */
    public RedisBitReader(RedisStoredState state, RedisFilterCommands commands, RedisNearCopy nearCopy,
            Executor refresher) {
        this.state = state;
        this.commands = commands;
        this.nearCopy = nearCopy;
        this.refresher = refresher;
    }

    public boolean mightContain(Object key) {
        RedisFilterView current = state.view();
        if (current.live != null && current.live.layered()) {
            Boolean copied = fromCopy(current, key);
            if (copied != null) {
                return copied;
            }
            nearCopy.sent(1);
            RedisLayerCheck layered = new RedisLayerCheck(current, key, state, refresher);
            if (layered.layers == null) {
                return true;
            }
            long start = System.nanoTime();
            CompletableFuture<Object> reply = commands.sendCheck(layered::send);
            try {
                return layered.answer(commands.awaitCheck(reply));
            }
            finally {
                checkLatency.checked(System.nanoTime() - start);
            }
        }
        if (current.live == null) {
            return true;
        }
        Boolean copied = fromCopy(current, key);
        if (copied != null) {
            return copied;
        }
        RedisBlockCheck check = RedisBlockCheck.of(current, key, state, nearCopy);
        long start = System.nanoTime();
        // Sent apart from awaited: a check the open breaker refuses never reached Redis, and is not timed.
        CompletableFuture<byte[]> reply = commands.sendCheck(port -> port.getRange(check.bitmap, check.start,
                check.end()));
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
        CompletableFuture<Boolean> barrier = commands.sendCheck(port -> ordered.barrier(key));
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
        return timed(commands.checkAsync(port -> ordered.barrier(key)), passed -> ordered.answer(key, passed))
                .thenCompose(answer -> (answer != null) ? CompletableFuture.completedFuture(answer)
                        : readAsync(current, key));
    }

    /** The key's block (every layer's, for a filter that grows by layers) read in Redis. */
    private CompletableFuture<Boolean> readAsync(RedisFilterView current, Object key) {
        if (current.live.layered()) {
            nearCopy.sent(1);
            RedisLayerCheck layered = new RedisLayerCheck(current, key, state, refresher);
            if (layered.layers == null) {
                return CompletableFuture.completedFuture(true);
            }
            return timed(commands.checkAsync(layered::send), layered::answer);
        }
        RedisBlockCheck check = RedisBlockCheck.of(current, key, state, nearCopy);
        return timed(commands.checkAsync(port -> port.getRange(check.bitmap, check.start, check.end())),
                check::answer);
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
        if (live == null || (live.layered() && current.layers == null)) {
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
        if (live.layered()) {
            return mightContainAllLayered(current, checked, held);
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
            LuaScript checkAll = live.counting() ? RedisCounterScripts.CHECK_ALL : RedisScripts.CHECK_ALL;
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
            copied = ordered.answers(lacking, commands.awaitCheck(commands.sendCheck(port -> ordered.barrier(lacking))));
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

    /** One {@link RedisLayerScripts#CHECK} per key, all sent before any answer is awaited: one round trip. */
    private boolean[] mightContainAllLayered(RedisFilterView current, List<?> checked, boolean[] held) {
        List<RedisLayerCheck> checks = new ArrayList<>(checked.size());
        List<CompletableFuture<Object>> replies = new ArrayList<>(checked.size());
        for (int i = 0; i < held.length; i++) {
            // held: answered by the copy
            RedisLayerCheck check = held[i] ? null : new RedisLayerCheck(current, checked.get(i), state, refresher);
            checks.add(check);
            replies.add((check != null) ? commands.send(check::send) : null);
        }
        nearCopy.sent((int) checks.stream().filter(java.util.Objects::nonNull).count());
        boolean[] answers = new boolean[checked.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = held[i] || checks.get(i).answer(commands.await(replies.get(i)));
        }
        return answers;
    }
}
