package io.bloomguard.core;

/**
 * The layers of a scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters", 2007):
 * a filter that adds a layer when its newest one is full, instead of letting its false-positive rate climb. Layer
 * {@code i} is sized for {@code n·s^i} keys at error rate {@code ε_i = ε·(1−r)·r^i}. A check asks every layer, so an
 * absent key passes with probability {@code 1 − Π(1 − ε_i) ≤ Σ ε_i = ε}, however many layers there are.
 *
 * <p>Growth factor {@code s} = {@value #GROWTH_FACTOR}: each layer holds as many keys as all before it, so layers stay
 * few ({@code log₂} of the growth) and memory grows in step with the keys. Tightening ratio {@code r} =
 * {@value #TIGHTENING_RATIO}: halving a layer's error rate costs {@code ln 2 / (ln 2)² ≈ 1.44} bits per key, so layer
 * 0 (the expected keys) costs 1.44 bits per key more than a filter that never grows (about 15% at ε = 1%), and each
 * later layer 1.44 more again. Almeida et al. favour r = 0.8–0.9 for filters that grow by orders of magnitude; for the
 * few doublings of an expected size that was set too low, r = 0.5 costs less memory: ε·(1−r) for layer 0 is ε/2 here,
 * ε/10 at r = 0.9 (4.8 bits per key more, about 50%).
 *
 * <p>Every backend grows a layer by the same rule ({@link #fullAtSetBits}), so they agree on which keys go where.
 *
 * <p>Usage: {@code FilterSizing first = ScalableSizing.of(1_000_000, 0.01).layer(0);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param expectedSize keys the first layer is sized for ({@code n})
 * @param errorRate    false-positive probability of all layers together, whatever their number ({@code ε})
 * @hidden
 */
public record ScalableSizing(long expectedSize, double errorRate) {

    /** {@code s}: each layer holds this many times the keys of the one before. */
    public static final int GROWTH_FACTOR = 2;

    /** {@code r}: each layer's error rate is this share of the one before's. */
    public static final double TIGHTENING_RATIO = 0.5;

    public ScalableSizing {
        if (expectedSize <= 0) {
            throw new IllegalArgumentException("expected size must be at least 1, was " + expectedSize);
        }
        if (!(errorRate > 0.0 && errorRate < 1.0)) {
            throw new IllegalArgumentException("error rate must be greater than 0 and less than 1, was " + errorRate);
        }
    }

    public static ScalableSizing of(long expectedSize, double errorRate) {
        return new ScalableSizing(expectedSize, errorRate);
    }

    /** The layers of which {@code first} is layer 0: its keys, and an error rate of {@code ε_0 / (1 − r)}. */
    public static ScalableSizing withFirstLayer(FilterSizing first) {
        return new ScalableSizing(first.expectedSize(), first.errorRate() / (1 - TIGHTENING_RATIO));
    }

    /** Keys layer {@code index} holds: {@code n·s^index}. */
    public long layerCapacity(int index) {
        long capacity = expectedSize;
        for (int i = 0; i < index; i++) {
            capacity = Math.multiplyExact(capacity, GROWTH_FACTOR);
        }
        return capacity;
    }

    /** Error rate of layer {@code index}: {@code ε·(1−r)·r^index}. */
    public double layerErrorRate(int index) {
        return errorRate * (1 - TIGHTENING_RATIO) * Math.pow(TIGHTENING_RATIO, index);
    }

    /**
     * Size of layer {@code index}.
     *
     * @throws IllegalArgumentException when the layer would be larger than any filter can be
     */
    public FilterSizing layer(int index) {
        long capacity;
        try {
            capacity = layerCapacity(index);
        }
        catch (ArithmeticException ex) {
            throw new IllegalArgumentException("layer " + index + " of " + this + " would hold more than 2^63 keys");
        }
        return FilterSizing.of(capacity, layerErrorRate(index));
    }

    /**
     * Set bits at which a layer is full and the next one is added: as many as the model expects once it holds the keys
     * it is sized for. Counted in bits, not keys, because bits do not depend on the order keys arrived in.
     */
    public static long fullAtSetBits(FilterSizing layer) {
        return (long) Math.ceil(layer.expectedSetBits(layer.expectedSize()));
    }

    /** {@code 1 − Π(1 − p_i)}: the chance that an absent key passes at least one of layers with these probabilities. */
    public static double compoundFalsePositiveProbability(double... layerProbabilities) {
        double allMiss = 1.0;
        for (double probability : layerProbabilities) {
            allMiss *= 1.0 - probability;
        }
        return 1.0 - allMiss;
    }
}
