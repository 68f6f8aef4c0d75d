package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.ScalableSizing;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * A scalable Bloom filter in this JVM: {@link LocalBloomFilter layers} sized by {@link ScalableSizing}. When the
 * newest layer is full, the put that filled it adds the next one, twice as large with half the error rate, so the
 * false-positive rate of all layers together stays at or below the error rate however many keys arrive.
 *
 * <p>Usage: {@code BloomFilter ids = ScalableLocalFilter.create(ScalableSizing.of(1_000_000, 0.01).layer(0));}
 *
 * <p>Every layer hashes with the same seed, so a key is hashed once for all of them; its bits still land on
 * independent-looking places, because each layer holds other keys. A check asks the layers from the newest (the
 * largest) down and stops at the first that holds the key: an absent key costs one block read per layer. A put goes
 * to the newest layer, and only when no older layer holds the key, so that {@code put} answers "new" as a single
 * filter does. Adding a layer allocates it on the putting thread (a moment's pause for that one put, once per
 * doubling); a layer that cannot be built (larger than a local filter may be) stops the growth, and the filter then
 * fills its newest layer past its capacity, as a filter that does not grow would.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ScalableLocalFilter implements BloomFilter {

    private static final SecureRandom SEEDS = new SecureRandom();

    private final ScalableSizing scaling;
    private final int seed;
    /** Oldest first; replaced, never changed, when a layer is added. */
    private volatile Layer[] live;
    private volatile boolean growthStopped;

    private record Layer(LocalBloomFilter filter, long fullAtSetBits) {

        static Layer of(FilterSizing sizing, int seed) {
            return new Layer(LocalBloomFilter.create(sizing, seed), ScalableSizing.fullAtSetBits(sizing));
        }
    }

    private ScalableLocalFilter(FilterSizing firstLayer, int seed) {
        this.scaling = ScalableSizing.withFirstLayer(firstLayer);
        this.seed = seed;
        this.live = new Layer[] { Layer.of(firstLayer, seed) };
    }

    /** A filter whose layer 0 has this size, with a random seed. */
    public static ScalableLocalFilter create(FilterSizing firstLayer) {
        return new ScalableLocalFilter(firstLayer, SEEDS.nextInt());
    }

    /** A filter whose layer 0 has this size, with a chosen seed: for tests. */
    public static ScalableLocalFilter create(FilterSizing firstLayer, int seed) {
        return new ScalableLocalFilter(firstLayer, seed);
    }

    @Override
    public boolean mightContain(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        Layer[] layers = live;
        for (int i = layers.length - 1; i >= 0; i--) {
            if (layers[i].filter().holds(hash.h1(), hash.h2())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean put(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        Layer[] layers = live;
        for (int i = 0; i < layers.length - 1; i++) {
            if (layers[i].filter().holds(hash.h1(), hash.h2())) {
                return false;
            }
        }
        Layer newest = layers[layers.length - 1];
        boolean changed = newest.filter().put(hash.h1(), hash.h2());
        if (changed && !growthStopped && newest.filter().setBitCount() >= newest.fullAtSetBits()) {
            addLayer(layers);
        }
        return changed;
    }

    /** Adds the next layer, unless another put added it since {@code seen} was read. */
    private synchronized void addLayer(Layer[] seen) {
        if (live != seen || growthStopped) {
            return;
        }
        Layer next;
        try {
            next = Layer.of(scaling.layer(seen.length), seed);
        }
        catch (IllegalArgumentException ex) {
            growthStopped = true; // larger than a local filter can be: the newest layer fills on
            return;
        }
        Layer[] grown = Arrays.copyOf(seen, seen.length + 1);
        grown[seen.length] = next;
        live = grown;
    }

    /** Number of layers. */
    @Override
    public int layerCount() {
        return live.length;
    }

    /** Whether the filter has stopped adding layers, because the next would be larger than a local filter may be. */
    public boolean growthStopped() {
        return growthStopped;
    }

    /** Keys the layers hold at their error rates together. */
    @Override
    public long capacity() {
        Layer[] layers = live;
        long capacity = 0;
        for (Layer layer : layers) {
            capacity += layer.filter().sizing().expectedSize();
        }
        return capacity;
    }

    /** Sum of the layers' estimates. */
    @Override
    public long approximateElementCount() {
        long count = 0;
        for (Layer layer : live) {
            long estimate = layer.filter().approximateElementCount();
            if (estimate == Long.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
            count += estimate;
        }
        return count;
    }

    /** The chance that an absent key passes at least one layer. */
    @Override
    public double expectedFpp() {
        Layer[] layers = live;
        double[] probabilities = new double[layers.length];
        for (int i = 0; i < layers.length; i++) {
            probabilities[i] = layers[i].filter().expectedFpp();
        }
        return ScalableSizing.compoundFalsePositiveProbability(probabilities);
    }

    @Override
    public OptionalLong countedSetBits() {
        long set = 0;
        for (Layer layer : live) {
            set += layer.filter().setBitCount();
        }
        return OptionalLong.of(set);
    }

    /** Bits of all layers. */
    @Override
    public long bitSize() {
        long bits = 0;
        for (Layer layer : live) {
            bits += layer.filter().bitSize();
        }
        return bits;
    }

    /** Bits a put sets: the newest layer's {@code k}. */
    @Override
    public int hashCount() {
        Layer[] layers = live;
        return layers[layers.length - 1].filter().hashCount();
    }

    /** The size of layer 0; the others follow from it. */
    @Override
    public FilterSizing sizing() {
        return live[0].filter().sizing();
    }

    @Override
    public int seed() {
        return seed;
    }

    @Override
    public String toString() {
        Layer[] layers = live;
        return "ScalableLocalFilter[" + layers.length + (layers.length == 1 ? " layer" : " layers") + ", m="
                + bitSize() + ", n=" + capacity() + ", ε=" + scaling.errorRate() + "]";
    }
}
