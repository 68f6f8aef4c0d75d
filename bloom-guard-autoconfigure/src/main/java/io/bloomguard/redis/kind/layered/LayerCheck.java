package io.bloomguard.redis.kind.layered;

import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.kind.KeyCheck;
import io.bloomguard.redis.port.RedisPort;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A key's blocks in every layer of a filter that grows by layers, read by one {@link LayerScripts#CHECK}.
 *
 * <p>Usage: {@code LayerCheck check = new LayerCheck(generation, layers, key, events);
 * boolean maybe = check.answer(check.send(port).join());}
 */
final class LayerCheck implements KeyCheck<Object> {

    private final LayeredGeneration generation;
    private final Layers layers;
    private final Hash128 hash;
    private final Events events;

    /** @param layers {@code generation}'s, which this instance has sized */
    LayerCheck(LayeredGeneration generation, Layers layers, Object key, Events events) {
        this.generation = generation;
        this.layers = layers;
        this.hash = KeyCanonicalizer.hash(key, generation.identity().seed());
        this.events = events;
    }

    @Override
    public CompletableFuture<Object> send(RedisPort port) {
        return port.eval(LayerScripts.CHECK, layers.checkKeys(), layers.checkArgs(hash));
    }

    @Override
    public boolean answer(Object reply) {
        return layers.answer((List<?>) reply, hash, () -> events.bitmapMissing(generation), events::layerAdded);
    }
}
