package io.bloomguard.local;

import io.bloomguard.core.FilterSizing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At its expected size n, a filter's measured false-positive rate is at most its error rate ε, up to
 * n = 10⁷, and its element count estimate is within 2% of the truth all the way up to n.
 *
 * <p>Bounds: sizing targets 0.95·ε. The probe count is chosen so that ε sits at least 3 standard deviations
 * of the sampling spread (√(ε(1−ε)/probes)) above 0.95·ε: 10⁶ probes for ε ≥ 0.01 (σ ≤ 0.001·ε^½) and
 * 4·10⁶ for ε = 0.001 (σ = 1.6% of ε). The count estimate's spread at these sizes is well under 0.5%.
 */
class LocalFalsePositiveRateTest {

    @ParameterizedTest(name = "n = {0}, ε = {1}")
    @CsvSource({
            "10000, 0.1, 1000000", "10000, 0.01, 1000000", "10000, 0.001, 4000000",
            "1000000, 0.1, 1000000", "1000000, 0.01, 1000000", "1000000, 0.001, 4000000",
            "10000000, 0.1, 1000000", "10000000, 0.01, 1000000", "10000000, 0.001, 4000000" })
    void measuredRateAtExpectedSizeIsAtMostTheErrorRate(int n, double errorRate, int probes) {
        LocalBloomFilter filter = LocalBloomFilter.create(FilterSizing.of(n, errorRate), 0x5eed5eed);
        SplittableRandom keys = new SplittableRandom(n);
        long[] checkpoints = { n / 10, n / 2, n };
        int next = 0;
        for (int i = 1; i <= n; i++) {
            // Odd keys are present, even keys are the absent probes below.
            filter.put(keys.nextLong() | 1L);
            if (i == checkpoints[next]) {
                assertThat((double) filter.approximateElementCount()).as("estimate at %d keys", i)
                        .isBetween(i * 0.98, i * 1.02);
                next = Math.min(next + 1, checkpoints.length - 1);
            }
        }
        SplittableRandom absent = new SplittableRandom(-n);
        int falsePositives = 0;
        for (int i = 0; i < probes; i++) {
            if (filter.mightContain(absent.nextLong() & ~1L)) {
                falsePositives++;
            }
        }
        double measured = (double) falsePositives / probes;
        assertThat(measured).as("measured false-positive rate").isLessThanOrEqualTo(errorRate);
        assertThat(measured).as("measured against the model").isGreaterThan(errorRate * 0.5);
    }
}
