package io.bloomguard.registry;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildRefusedException;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the rebuild gate holds back: a read of far fewer keys than the live filter holds. A live filter whose every bit
 * is set cannot be counted (its estimate is unbounded): its rebuild is held to the last real count, not refused for
 * ever while the saturated filter lets every call through.
 */
class RebuildGateTest {

    private final AtomicReference<OptionalLong> live = new AtomicReference<>(OptionalLong.of(1_000));

    private final RebuildGate gate = new RebuildGate(FilterSpec.builder("users").expectedSize(1_000).build(),
            live::get, () -> true, Clock.systemUTC());

    @Test
    void aReadOfFarFewerKeysThanTheFilterHoldsIsHeldBack() {
        assertThatExceptionOfType(RebuildRefusedException.class).isThrownBy(() -> read(100));
        assertThat(gate.held()).isNotNull();
    }

    @Test
    void aSaturatedFilterIsHeldToItsLastRealCountNotToAnUnboundedOne() {
        assertThat(read(900)).isEqualTo(900); // counted 1,000: read in full
        live.set(OptionalLong.of(Long.MAX_VALUE)); // every bit set since

        assertThat(read(3_000)).isEqualTo(3_000);
        assertThat(gate.held()).isNull();
        assertThatExceptionOfType(RebuildRefusedException.class).as("still held to the last real count")
            .isThrownBy(() -> read(100));
    }

    private long read(int keys) {
        KeyFeed source = batches -> {
            batches.accept(List.of());
            return keys;
        };
        return gate.guard(source).feed(batch -> { });
    }
}
