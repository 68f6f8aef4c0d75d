package io.bloomguard.redis.read;

import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.RedisPort;
import io.bloomguard.redis.layout.RedisLayerScripts;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStoredState;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A key's blocks in every layer of a filter that grows by layers, read by one script.
 *
 * <p>Usage: {@code RedisLayerCheck check = new RedisLayerCheck(view, key, state, refresher);
 * boolean maybe = check.answer(port.eval(...).join());}
 */
final class RedisLayerCheck {

    private final RedisFilterView view;
    final @Nullable RedisLayers layers;
    private final Hash128 hash;
    private final RedisStoredState state;
    private final Executor refresher;

    /** @param refresher where a view that lacks a layer the check found is read again */
    RedisLayerCheck(RedisFilterView view, Object key, RedisStoredState state, Executor refresher) {
        this.view = view;
        this.layers = view.layers;
        this.hash = KeyCanonicalizer.hash(key, view.live.seed());
        this.state = state;
        this.refresher = refresher;
    }

    CompletableFuture<Object> send(RedisPort port) {
        return port.eval(RedisLayerScripts.CHECK, layers.checkKeys(), layers.checkArgs(hash));
    }

    boolean answer(Object reply) {
        return layers.answer((List<?>) reply, hash, () -> state.bitmapMissing(view),
                () -> state.refreshSoon(refresher));
    }
}
