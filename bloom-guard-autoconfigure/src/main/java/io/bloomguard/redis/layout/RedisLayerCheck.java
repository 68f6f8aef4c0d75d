package io.bloomguard.redis.layout;

import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.port.RedisPort;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A key's blocks in every layer of a filter that grows by layers, read by one {@link RedisLayerScripts#CHECK}.
 *
 * <p>Usage: {@code RedisLayerCheck check = new RedisLayerCheck(generation, layers, key, events);
 * boolean maybe = check.answer(check.send(port).join());}
 */
final class RedisLayerCheck implements RedisKeyCheck<Object> {

    private final LayeredGeneration generation;
    private final RedisLayers layers;
    private final Hash128 hash;
    private final Events events;

    /** @param layers {@code generation}'s, which this instance has sized */
    RedisLayerCheck(LayeredGeneration generation, RedisLayers layers, Object key, Events events) {
        this.generation = generation;
        this.layers = layers;
        this.hash = KeyCanonicalizer.hash(key, generation.identity().seed());
        this.events = events;
    }

    @Override
    public CompletableFuture<Object> send(RedisPort port) {
        return port.eval(RedisLayerScripts.CHECK, layers.checkKeys(), layers.checkArgs(hash));
    }

    @Override
    public boolean answer(Object reply) {
        return layers.answer((List<?>) reply, hash, () -> events.bitmapMissing(generation), events::layerAdded);
    }
}
