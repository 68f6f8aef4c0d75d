package io.bloomguard.redis;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.SharedBloomFilter.CheckLatencyListener;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Checks keys against the live generation: one {@code GETRANGE} of the key's block per key (64 bytes of bits, or 256
 * of a counting filter's counters; timed, through the checks' breaker), one {@link RedisScripts#CHECK_ALL} (or
 * {@link RedisCounterScripts#CHECK_ALL}) per shard for a batch. With no live generation, or when
 * the bitmap turns out to be gone, a key "might be contained": a missing bitmap never means "absent".
 *
 * <p>With a {@link RedisNearCopy}, a key the copy holds is answered at once, and only the keys it lacks are checked
 * in Redis, whose answer alone decides; what Redis answered is merged into the copy.
 *
 * <p>Usage: {@code boolean maybe = reader.mightContain(42L);}
 */
final class RedisBitReader {

    private final RedisStoredState state;
    private final RedisFilterCommands commands;
    private final RedisNearCopy nearCopy;
    private volatile CheckLatencyListener checkLatency = CheckLatencyListener.NO_OP;

    RedisBitReader(RedisStoredState state, RedisFilterCommands commands, RedisNearCopy nearCopy) {
        this.state = state;
        this.commands = commands;
        this.nearCopy = nearCopy;
    }

    boolean mightContain(Object key) {
        BlockCheck check = blockCheck(key);
        if (check == null) {
            return true;
        }
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

    CompletableFuture<Boolean> mightContainAsync(Object key) {
        BlockCheck check = blockCheck(key);
        if (check == null) {
            return CompletableFuture.completedFuture(true);
        }
        long start = System.nanoTime();
        CompletableFuture<byte[]> reply = commands.checkAsync(
                port -> port.getRange(check.bitmap, check.start, check.end()));
        if (reply.isCompletedExceptionally()) {
            return reply.thenApply(check::answer); // not sent (breaker open, no connection): nothing to time
        }
        CheckLatencyListener listener = checkLatency;
        return reply.whenComplete((bytes, failure) -> listener.checked(System.nanoTime() - start))
                .thenApply(check::answer);
    }

    void onCheckLatency(CheckLatencyListener listener) {
        this.checkLatency = listener;
    }

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    boolean[] mightContainAll(List<?> checked) {
        boolean[] answers = new boolean[checked.size()];
        RedisFilterView current = state.view();
        RedisFilterIdentity live = current.live;
        if (live == null) {
            Arrays.fill(answers, true);
            return answers;
        }
        boolean[] held = nearCopy.holdsAll(current, checked);
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
     * The block holding a key's bits; {@code null} when there is nothing to read in Redis: no generation is live, or
     * the near copy holds the key ("might contain" either way).
     */
    private @Nullable BlockCheck blockCheck(Object key) {
        RedisFilterView current = state.view();
        RedisFilterIdentity live = current.live;
        if (live == null || nearCopy.holds(current, key)) {
            return null;
        }
        Hash128 hash = KeyCanonicalizer.hash(key, live.seed());
        long block = BlockedBloomLayout.blockIndex(hash.h1(), (int) live.blockCount());
        int shard = live.shardOf(block);
        long start = (block - live.firstBlockOf(shard)) * live.bytesPerBlock();
        return new BlockCheck(current, live, hash, current.liveKeys[shard], block, start);
    }

    /** The one block a key's bits are in, and how to read them from its bytes. */
    private final class BlockCheck {

        private final RedisFilterView view;
        private final RedisFilterIdentity live;
        private final Hash128 hash;
        private final String bitmap;
        private final long block;
        private final long start;

        private BlockCheck(RedisFilterView view, RedisFilterIdentity live, Hash128 hash, String bitmap, long block,
                long start) {
            this.view = view;
            this.live = live;
            this.hash = hash;
            this.bitmap = bitmap;
            this.block = block;
            this.start = start;
        }

        long end() {
            return start + live.bytesPerBlock() - 1;
        }

        boolean answer(byte[] bytes) {
            if (bytes.length < live.bytesPerBlock()) {
                state.bitmapMissing(view);
                return true;
            }
            nearCopy.learnBlock(view, block, bytes);
            long step = BlockedBloomLayout.step(hash.h1());
            long probe = hash.h2();
            boolean counting = live.counting();
            for (int i = 0; i < live.hashCount(); i++) {
                int position = BlockedBloomLayout.bitInBlock(probe);
                if (counting ? RedisCounterCodec.count(bytes, position) == 0 : !RedisBitmapCodec.isSet(bytes, position)) {
                    return false;
                }
                probe = BlockedBloomLayout.nextProbe(probe, step);
            }
            return true;
        }
    }
}
