package io.bloomguard.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class FilterSizingTest {

    @ParameterizedTest
    @ValueSource(doubles = { 0.0, 1.0, -0.1, 1.5, Double.NaN })
    void errorRateOutsideZeroToOneIsRefused(double errorRate) {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterSizing.of(1000, errorRate))
                .withMessageContaining("error rate must be greater than 0 and less than 1");
    }

    @ParameterizedTest
    @ValueSource(longs = { 0, -1 })
    void expectedSizeBelowOneIsRefused(long expectedSize) {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterSizing.of(expectedSize, 0.01))
                .withMessageContaining("expected size must be at least 1");
    }

    @Test
    void tooLargeAFilterIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterSizing.of(Long.MAX_VALUE / 2, 0.01))
                .withMessageContaining("lower expected-size or raise error-rate");
    }

    /**
     * The model is sized to ε·margin; the classic formula m = −n·ln ε/(ln 2)² is a lower bound that a blocked
     * layout exceeds by a few percent (more for smaller ε, where uneven block loads matter more).
     */
    @ParameterizedTest
    @CsvSource({ "0.1, 1.00, 1.06", "0.01, 1.00, 1.07", "0.001, 1.02, 1.13", "0.0001, 1.05, 1.20" })
    void sizeIsTheClassicSizePlusTheBlockedLayoutsOverhead(double errorRate, double minRatio, double maxRatio) {
        long n = 1_000_000;
        FilterSizing sizing = FilterSizing.of(n, errorRate);
        double classicBits = -n * Math.log(errorRate) / (Math.log(2) * Math.log(2));
        assertThat(sizing.bitSize() / classicBits).isBetween(minRatio, maxRatio);
        assertThat(sizing.falsePositiveProbability(n)).isLessThanOrEqualTo(errorRate * FilterSizing.DESIGN_MARGIN);
        // One block fewer would miss the target: the size is the smallest that meets it.
        double oneBlockLess = FilterSizing.falsePositiveProbability(n, sizing.blockCount() - 1, sizing.hashCount());
        assertThat(oneBlockLess).isGreaterThan(errorRate * FilterSizing.DESIGN_MARGIN * 0.999);
    }

    /**
     * An error rate just below 1 sizes billions of keys from one block up: the model is then summed over block
     * loads beyond {@code int} range, and startup must get an answer (here a filter sized for ε·margin), not spin.
     */
    @Test
    void billionsOfKeysAtAnErrorRateJustBelowOneAreSized() {
        FilterSizing sizing = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> FilterSizing.of(2_200_000_000L, 0.9999999));
        assertThat(sizing.falsePositiveProbability(2_200_000_000L))
                .isLessThanOrEqualTo(0.9999999 * FilterSizing.DESIGN_MARGIN);
    }

    @Test
    void tinyFiltersGetAtLeastOneBlock() {
        FilterSizing sizing = FilterSizing.of(1, 0.5);
        assertThat(sizing.blockCount()).isEqualTo(1);
        assertThat(sizing.bitSize()).isEqualTo(512);
    }

    @Test
    void keyEstimateInvertsExpectedSetBits() {
        FilterSizing sizing = FilterSizing.of(100_000, 0.01);
        for (long keys : new long[] { 1, 1_000, 50_000, 100_000, 300_000 }) {
            long bits = Math.round(sizing.expectedSetBits(keys));
            assertThat(sizing.estimateKeys(bits)).isCloseTo(keys, within(keys * 0.001 + 1));
        }
    }

    @Test
    void fppGrowsWithKeys() {
        FilterSizing sizing = FilterSizing.of(100_000, 0.01);
        assertThat(sizing.falsePositiveProbability(0)).isZero();
        assertThat(sizing.falsePositiveProbability(50_000)).isLessThan(sizing.falsePositiveProbability(100_000));
        assertThat(sizing.falsePositiveProbability(200_000)).isGreaterThan(0.01);
    }
}
