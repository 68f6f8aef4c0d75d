package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Whether the build a near copy mirrors is still live in Redis: its bitmaps (every layer's) exist, and shard 0's
 * metadata names the same build with as many layers. A {@code FLUSHALL}, a bitmap deleted or evicted, or the filter
 * created afresh after one, publishes nothing a copy in step would hear (a store wiped keeps no flag to publish with),
 * so a copy that answers absent keys asks this too, after the lookup began ({@link RedisOrderedCheck}).
 *
 * <p>Lookups share it as they share the barrier: one probe in flight, and the next, sent when it returns, for those
 * that came after it was sent, so that a flood costs one round trip per window rather than one per key.
 *
 * <p>Usage: {@code CompletableFuture<Boolean> live = probe.stillLive(port);}
 */
final class RedisLiveProbe {

    /**
     * KEYS: a shard's metadata, then the copy's bitmaps on that shard. ARGV: the build the copy mirrors, as
     * {@code generation@loaded-at} ('' past shard 0, whose metadata alone names it), its layer count ('' for a filter
     * that does not grow by layers). Returns 1 when it is still live there, 0 when not.
     */
    static final LuaScript STILL_LIVE = LuaScript.of("still-live", LuaScript.Result.INTEGER, """
            if ARGV[1] ~= '' then
              local build = (redis.call('HGET', KEYS[1], 'generation') or 'null') .. '@'
                .. (redis.call('HGET', KEYS[1], 'loaded-at') or 'null')
              if build ~= ARGV[1] then return 0 end
            end
            if ARGV[2] ~= '' and (redis.call('HGET', KEYS[1], 'layers') or '1') ~= ARGV[2] then return 0 end
            for i = 2, #KEYS do
              if redis.call('EXISTS', KEYS[i]) == 0 then return 0 end
            end
            return 1
            """);

    /** Per shard: the script's KEYS and ARGV. */
    private final List<List<String>> keysByShard = new ArrayList<>();
    private final List<List<String>> argsByShard = new ArrayList<>();
    private @Nullable CompletableFuture<Boolean> inFlight;
    private @Nullable CompletableFuture<Boolean> waiting;
    /** The connection the waiting probe goes out on: that of the lookup that asked for it. */
    private @Nullable RedisPort waitingPort;

    RedisLiveProbe(RedisCopiedBuild copy, RedisFilterKeys keys) {
        Generation live = copy.generation;
        String layers = live.hasLayers() ? Integer.toString(copy.parts()) : "";
        for (int shard = 0; shard < live.identity().shards(); shard++) {
            List<String> names = new ArrayList<>();
            names.add(keys.meta(shard));
            names.addAll(live.dataKeysIn(shard));
            keysByShard.add(List.copyOf(names));
            argsByShard.add(List.of((shard == 0) ? copy.build : "", layers));
        }
    }

    /** {@code true} once a probe sent after this call found the build still live, {@code false} if it did not. */
    synchronized CompletableFuture<Boolean> stillLive(RedisPort port) {
        if (inFlight == null) {
            return send(port);
        }
        if (waiting == null) {
            waiting = new CompletableFuture<>();
            waitingPort = port;
        }
        return waiting;
    }

    /** Under this object's lock. */
    private CompletableFuture<Boolean> send(RedisPort port) {
        CompletableFuture<Boolean> round = new CompletableFuture<>();
        inFlight = round;
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        try {
            for (int shard = 0; shard < keysByShard.size(); shard++) {
                replies.add(port.eval(STILL_LIVE, keysByShard.get(shard), argsByShard.get(shard)));
            }
        }
        catch (RuntimeException ex) {
            inFlight = null;
            round.completeExceptionally(ex);
            return round;
        }
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).whenComplete((done, failure) ->
                answered(round, failure, replies));
        return round;
    }

    /** A probe came back (or failed): the next goes out for the lookups waiting, then this one's are told. */
    private void answered(CompletableFuture<Boolean> round, @Nullable Throwable failure,
            List<CompletableFuture<Object>> replies) {
        synchronized (this) {
            if (inFlight == round) {
                inFlight = null;
                CompletableFuture<Boolean> next = waiting;
                RedisPort port = waitingPort;
                waiting = null;
                waitingPort = null;
                if (next != null && port != null) {
                    send(port).whenComplete((live, error) -> {
                        if (error != null) {
                            next.completeExceptionally(error);
                        }
                        else {
                            next.complete(live);
                        }
                    });
                }
            }
        }
        if (failure != null) {
            round.completeExceptionally(failure);
            return;
        }
        boolean live = true;
        for (CompletableFuture<Object> reply : replies) {
            live &= Long.valueOf(1L).equals(reply.join());
        }
        round.complete(live);
    }
}
