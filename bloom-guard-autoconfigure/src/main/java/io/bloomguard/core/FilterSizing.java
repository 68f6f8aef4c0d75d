package io.bloomguard.core;

/**
 * Size of a filter: block count and hash count for an expected number of keys {@code n} and a target
 * false-positive probability {@code ε}, for the {@link BlockedBloomLayout blocked layout}.
 *
 * <p>A classic Bloom filter needs {@code m = −n·ln ε / (ln 2)²} bits. A blocked filter needs a little more,
 * because keys do not spread evenly over blocks; how much more is computed, not guessed: the false-positive
 * probability of a blocked filter with {@code λ = n / blocks} keys per block on average is about
 * {@code Σ_j Poisson(j; λ)·(1 − q^{kj})^k} with {@code q = 1 − 1/512}, and a little more once the chance that
 * a key's probes repeat a bit is counted (see {@link #falsePositiveProbability(double, long, int)}). The smallest block count (and the best {@code k}
 * for it) whose probability is at most {@code ε·}{@value #DESIGN_MARGIN} wins; the margin absorbs the
 * sampling spread, so that the <em>measured</em> rate at {@code n} keys stays at or below {@code ε}.
 *
 * <p>Usage: {@code FilterSizing sizing = FilterSizing.of(1_000_000, 0.01);}
 *
 * @param expectedSize keys the filter is sized for ({@code n})
 * @param errorRate    target false-positive probability at {@code n} keys ({@code ε})
 * @param blockCount   number of {@value BlockedBloomLayout#BLOCK_BITS}-bit blocks
 * @param hashCount    bits set per key ({@code k})
 *
 * @since 0.1.0
 */
public record FilterSizing(long expectedSize, double errorRate, long blockCount, int hashCount) {

    /** Fraction of {@code ε} the model is sized for. */
    public static final double DESIGN_MARGIN = 0.95;

    /** Largest {@code k}. The local check masks {@code k} with 31 so the JIT sees a short loop: keep it below 32. */
    static final int MAX_HASHES = 30;

    private static final double Q = 1.0 - 1.0 / BlockedBloomLayout.BLOCK_BITS;

    public FilterSizing {
        if (blockCount < 1 || blockCount > BlockedBloomLayout.MAX_BLOCKS) {
            throw new IllegalArgumentException("blockCount must be between 1 and " + BlockedBloomLayout.MAX_BLOCKS
                    + ", was " + blockCount);
        }
        if (hashCount < 1 || hashCount > MAX_HASHES) {
            throw new IllegalArgumentException("hashCount must be between 1 and " + MAX_HASHES + ", was " + hashCount);
        }
    }

    /**
     * Sizes a filter.
     *
     * @throws IllegalArgumentException when {@code n ≤ 0}, {@code ε} is not strictly between 0 and 1, or the
     *                                  filter would need more than {@value BlockedBloomLayout#MAX_BLOCKS} blocks
     */
    public static FilterSizing of(long expectedSize, double errorRate) {
        if (expectedSize <= 0) {
            throw new IllegalArgumentException("expected size must be at least 1, was " + expectedSize);
        }
        if (!(errorRate > 0.0 && errorRate < 1.0)) {
            throw new IllegalArgumentException("error rate must be greater than 0 and less than 1, was " + errorRate);
        }
        double target = errorRate * DESIGN_MARGIN;
        // Start from the classic size (a lower bound) and double until the blocked model meets the target,
        // then bisect down to the smallest block count that does.
        double classicBits = -expectedSize * Math.log(errorRate) / (Math.log(2) * Math.log(2));
        long low = Math.max(1, (long) (classicBits / BlockedBloomLayout.BLOCK_BITS) - 1);
        long high = Math.max(low, 1);
        while (bestFor(expectedSize, high).fpp > target) {
            if (high >= BlockedBloomLayout.MAX_BLOCKS) {
                throw new IllegalArgumentException("a filter for " + expectedSize + " keys at error rate " + errorRate
                        + " needs more than " + BlockedBloomLayout.MAX_BLOCKS + " blocks of "
                        + BlockedBloomLayout.BLOCK_BITS + " bits; lower expected-size or raise error-rate");
            }
            low = high;
            high = Math.min(BlockedBloomLayout.MAX_BLOCKS, high * 2);
        }
        while (low < high) {
            long mid = low + (high - low) / 2;
            if (bestFor(expectedSize, mid).fpp <= target) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        Choice best = bestFor(expectedSize, high);
        return new FilterSizing(expectedSize, errorRate, high, best.hashCount);
    }

    /** Bits in the filter ({@code m}). */
    public long bitSize() {
        return blockCount * BlockedBloomLayout.BLOCK_BITS;
    }

    /** Bytes the bit array takes. */
    public long byteSize() {
        return bitSize() / 8;
    }

    /** Bits per expected key ({@code m/n}). */
    public double bitsPerKey() {
        return (double) bitSize() / expectedSize;
    }

    /** Expected false-positive probability once {@code keys} distinct keys are in the filter. */
    public double falsePositiveProbability(double keys) {
        return falsePositiveProbability(keys, blockCount, hashCount);
    }

    /** Expected number of set bits once {@code keys} distinct keys are in the filter. */
    public double expectedSetBits(double keys) {
        double lambda = keys / blockCount;
        return bitSize() * -Math.expm1(lambda * (Math.pow(Q, hashCount) - 1.0));
    }

    /** Estimated number of distinct keys added, from the number of set bits (the inverse of the above). */
    public double estimateKeys(long setBits) {
        long m = bitSize();
        if (setBits >= m) {
            return Double.POSITIVE_INFINITY;
        }
        return blockCount * Math.log1p(-(double) setBits / m) / (Math.pow(Q, hashCount) - 1.0);
    }

    /** {@link #estimateKeys} as a count: {@code Long.MAX_VALUE} once every bit is set. */
    public long estimateKeyCount(long setBits) {
        double estimate = estimateKeys(setBits);
        return Double.isInfinite(estimate) ? Long.MAX_VALUE : Math.round(estimate);
    }

    /** The false-positive probability of a filter with {@code setBits} set: 1 once every bit is set. */
    public double falsePositiveProbabilityAt(long setBits) {
        double keys = estimateKeys(setBits);
        return Double.isInfinite(keys) ? 1.0 : falsePositiveProbability(keys);
    }

    /**
     * {@code Σ_j Poisson(j; λ)·Σ_d P(d)·f_j^d}: a block holding {@code j} keys has each bit set with
     * probability {@code f_j = 1 − q^{kj}}, and an absent key's {@code k} probes land on {@code d} distinct
     * bits with probability {@code P(d)} (they are drawn with replacement from 512). Counting the distinct
     * probes makes the model an upper bound: {@code (1 − q^{kj})^k} alone measured up to 5% under the real
     * rate at k = 12. Summed directly over the likely block loads {@code j} (the binomial expansion has a
     * closed form but cancels catastrophically for large {@code k}).
     */
    static double falsePositiveProbability(double keys, long blockCount, int hashCount) {
        if (keys <= 0) {
            return 0.0;
        }
        double[] distinct = distinctProbeDistribution(hashCount);
        double lambda = keys / blockCount;
        double logQ = Math.log(Q);
        // Block loads in long: an error rate just below 1 starts the search at one block holding billions of keys,
        // and an int bound there would saturate at Integer.MAX_VALUE and the loop would never end.
        long last = (long) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 30);
        long first = (long) Math.max(0, Math.floor(lambda - 12 * Math.sqrt(lambda) - 30));
        double logLambda = Math.log(lambda);
        double sum = 0.0;
        for (long j = first; j <= last; j++) {
            double poisson = Math.exp(j * logLambda - lambda - logFactorial(j));
            double fill = -Math.expm1((double) hashCount * j * logQ);
            double blockFpp = 0.0;
            double fillPower = 1.0;
            for (int d = 1; d <= hashCount; d++) {
                fillPower *= fill;
                blockFpp += distinct[d] * fillPower;
            }
            sum += poisson * blockFpp;
        }
        return sum;
    }

    /** {@code P(d)}: the chance that {@code k} probes drawn with replacement from a block hit {@code d} distinct bits. */
    private static double[] distinctProbeDistribution(int hashCount) {
        double bits = BlockedBloomLayout.BLOCK_BITS;
        double[] probability = new double[hashCount + 1];
        probability[0] = 1.0;
        for (int draw = 0; draw < hashCount; draw++) {
            // Walk d downwards so that each draw reads the previous draw's values.
            for (int d = draw + 1; d >= 1; d--) {
                probability[d] = probability[d] * (d / bits) + probability[d - 1] * ((bits - (d - 1)) / bits);
            }
            probability[0] = 0.0;
        }
        return probability;
    }

    private static double logFactorial(long j) {
        double sum = 0.0;
        if (j < 32) {
            for (int i = 2; i <= j; i++) {
                sum += Math.log(i);
            }
            return sum;
        }
        // Stirling's series: exact to double precision from 32 on.
        double x = j;
        return x * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI * x) + 1 / (12 * x) - 1 / (360 * x * x * x);
    }

    private record Choice(int hashCount, double fpp) {
    }

    private static Choice bestFor(long keys, long blockCount) {
        Choice best = new Choice(1, falsePositiveProbability(keys, blockCount, 1));
        for (int k = 2; k <= MAX_HASHES; k++) {
            double fpp = falsePositiveProbability(keys, blockCount, k);
            if (fpp < best.fpp) {
                best = new Choice(k, fpp);
            }
        }
        return best;
    }
}
