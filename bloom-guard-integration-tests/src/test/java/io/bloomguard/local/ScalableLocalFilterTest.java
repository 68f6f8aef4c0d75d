package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The scalable filter passes the contract every filter does, and keeps its error rate however full it gets. */
class ScalableLocalFilterTest extends BloomFilterContractTest {

    private static final int N = 50_000;

    private static final double ERROR_RATE = 0.01;

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ScalableLocalFilter.create(sizing, seed);
    }

    /**
     * Filled to four times its expected size, it has added two layers (n, 2n, 4n) and the measured false-positive
     * rate is still at most ε, where a filter that does not grow lets about 65% of absent keys through. Bound: the
     * layers' rates add up to at most ε/2 + ε/4 + ε/8 (each measured at or below its own), 0.875·ε; the sampling
     * spread over 10⁶ probes is under 1% of ε.
     */
    @Test
    void filledToFourTimesItsExpectedSizeItStaysWithinItsErrorRate() {
        ScalableSizing layers = ScalableSizing.of(N, ERROR_RATE);
        ScalableLocalFilter filter = ScalableLocalFilter.create(layers.layer(0), SEED);
        LocalBloomFilter fixed = LocalBloomFilter.create(FilterSizing.of(N, ERROR_RATE), SEED);
        long[] keys = presentKeys(4 * N, 10);
        for (long key : keys) {
            filter.put(key);
            fixed.put(key);
        }
        for (long key : keys) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
        assertThat(filter.layerCount()).isEqualTo(3);
        assertThat(filter.capacity()).isEqualTo(7L * N);
        assertThat(filter.approximateElementCount()).isBetween((long) (0.98 * 4 * N), (long) (1.02 * 4 * N));
        long[] absent = presentKeys(1_000_000, 11);
        int passed = 0;
        int passedFixed = 0;
        for (long key : absent) {
            passed += filter.mightContain(key) ? 1 : 0;
            passedFixed += fixed.mightContain(key) ? 1 : 0;
        }
        double measured = (double) passed / absent.length;
        assertThat(measured).as("measured false-positive rate").isLessThanOrEqualTo(ERROR_RATE);
        assertThat(filter.expectedFpp()).as("the model").isLessThanOrEqualTo(ERROR_RATE)
                .isCloseTo(measured, org.assertj.core.data.Percentage.withPercentage(10));
        assertThat((double) passedFixed / absent.length).as("a filter that does not grow").isGreaterThan(0.1);
    }

    /** A put answers "new" only when no layer holds the key, so a key already in an older layer is not added again. */
    @Test
    void aKeyInAnOlderLayerIsNotPutAgain() {
        ScalableLocalFilter filter = ScalableLocalFilter.create(FilterSizing.of(1_000, ERROR_RATE), SEED);
        long[] keys = presentKeys(3_000, 12);
        for (long key : keys) {
            filter.put(key);
        }
        assertThat(filter.layerCount()).isGreaterThan(1);
        long bits = filter.countedSetBits().getAsLong();
        for (long key : keys) {
            assertThat(filter.put(key)).isFalse();
        }
        assertThat(filter.countedSetBits().getAsLong()).isEqualTo(bits);
    }
}
