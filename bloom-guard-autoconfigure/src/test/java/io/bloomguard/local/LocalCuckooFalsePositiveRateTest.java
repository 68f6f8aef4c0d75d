package io.bloomguard.local;

import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At its expected size n, a cuckoo filter's measured false-positive rate is at most its error rate ε, and where the
 * table's model ({@link CuckooLayout#falsePositiveProbability}: {@code 1 − (1 − 1/(2^f − 1))^(8α)} at load α) puts it.
 *
 * <p>Bounds: {@code f = ⌈log2(8/ε)⌉} makes the model at most 0.95·ε at the highest load the sizing allows (0.95), and
 * lower where the power-of-two bucket count leaves the table emptier. The measured rate must be within 4 standard
 * deviations of the sampling spread (√(p/probes)) of the model, and at most ε: 10⁶ probes for ε = 0.01 (σ ≤ 1% of ε),
 * 4·10⁶ for ε = 0.001 (σ ≤ 1.6% of ε). Hash seed and keys are fixed.
 */
class LocalCuckooFalsePositiveRateTest {

    @ParameterizedTest(name = "n = {0}, ε = {1}")
    @CsvSource({
            "10000, 0.01, 1000000", "10000, 0.001, 4000000",
            "1000000, 0.01, 1000000", "1000000, 0.001, 4000000",
            "3000000, 0.01, 1000000" })
    void measuredRateAtExpectedSizeIsAtMostTheErrorRateAndMatchesTheModel(int n, double errorRate, int probes) {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(n, errorRate), 0x5eed5eed);
        SplittableRandom keys = new SplittableRandom(n);
        for (int i = 0; i < n; i++) {
            filter.put(keys.nextLong() | 1L); // odd keys are present, even keys are the absent probes below
        }
        SplittableRandom absent = new SplittableRandom(-n);
        int falsePositives = 0;
        for (int i = 0; i < probes; i++) {
            falsePositives += filter.mightContain(absent.nextLong() & ~1L) ? 1 : 0;
        }
        double measured = (double) falsePositives / probes;
        double model = filter.layout().falsePositiveProbability(n);
        assertThat(model).as("model").isLessThanOrEqualTo(FilterSizing.DESIGN_MARGIN * errorRate);
        assertThat(measured).as("measured false-positive rate").isLessThanOrEqualTo(errorRate)
                .isCloseTo(model, org.assertj.core.data.Offset.offset(4 * Math.sqrt(model / probes)));
        // the model at the copies held: the odd put whose class held two copies already added none
        assertThat(filter.approximateElementCount()).isBetween(n - n / 10_000L, (long) n);
        assertThat(filter.expectedFpp())
                .isEqualTo(filter.layout().falsePositiveProbability(filter.approximateElementCount()));
        assertThat(filter.overflowCount()).as("no overflow at the expected size").isZero();
    }
}
