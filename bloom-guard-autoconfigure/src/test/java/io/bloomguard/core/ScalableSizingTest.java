package io.bloomguard.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class ScalableSizingTest {

    private final ScalableSizing sizing = ScalableSizing.of(1_000_000, 0.01);

    /** Each layer twice the keys, half the error rate: ε/2, ε/4, ... */
    @Test
    void layersDoubleTheirKeysAndHalveTheirErrorRate() {
        for (int i = 0; i < 5; i++) {
            FilterSizing layer = sizing.layer(i);
            assertThat(layer.expectedSize()).isEqualTo(1_000_000L << i);
            assertThat(layer.errorRate()).isCloseTo(0.01 / (2 << i), within(1e-15));
        }
    }

    /** However many layers, their rates add up to less than ε, and the chance of passing any is at most the sum. */
    @Test
    void theLayersTogetherStayWithinTheErrorRate() {
        double[] rates = new double[40];
        double sum = 0;
        for (int i = 0; i < rates.length; i++) {
            rates[i] = sizing.layerErrorRate(i);
            sum += rates[i];
        }
        assertThat(sum).isLessThan(0.01);
        assertThat(ScalableSizing.compoundFalsePositiveProbability(rates)).isLessThanOrEqualTo(sum).isGreaterThan(0.0099);
        assertThat(ScalableSizing.compoundFalsePositiveProbability(0.5, 0.5)).isEqualTo(0.75);
        assertThat(ScalableSizing.compoundFalsePositiveProbability()).isZero();
    }

    @Test
    void aFirstLayerGivesBackTheLayers() {
        assertThat(ScalableSizing.withFirstLayer(sizing.layer(0))).isEqualTo(sizing);
    }

    /** A layer is full once it has as many bits set as the model expects at the keys it is sized for. */
    @Test
    void aLayerIsFullAtTheBitsItsKeysSet() {
        FilterSizing layer = sizing.layer(1);
        long full = ScalableSizing.fullAtSetBits(layer);
        assertThat(layer.estimateKeys(full)).isCloseTo(layer.expectedSize(), within(1.0));
    }

    @Test
    void aLayerTooLargeForAnyFilterIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> sizing.layer(70)).withMessageContaining("2^63 keys");
        assertThatIllegalArgumentException().isThrownBy(() -> sizing.layer(40)).withMessageContaining("block");
        assertThatIllegalArgumentException().isThrownBy(() -> ScalableSizing.of(0, 0.01));
        assertThatIllegalArgumentException().isThrownBy(() -> ScalableSizing.of(10, 1.0));
    }
}
