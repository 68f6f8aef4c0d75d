package io.bloomguard.metrics;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.registry.FilterHistory.LoadKind;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BloomFilterMetricsTest {

    private final NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("users").expectedSize(1000)
            .errorRate(0.01).growth(GrowthPolicy.NONE).build(),
            LocalBloomFilter.create(FilterSizing.of(1000, 0.01)), FilterState.LOADING);

    private final MeterRegistry meters = new SimpleMeterRegistry();

    /** The preload usually ends after Spring Boot binds the meters, but a preload that ended before still shows. */
    @Test
    void aLoadThatEndedBeforeBindingIsRecordedOnceAndLaterOnesEachOnce() {
        filter.history().recordLoad(LoadKind.PRELOAD, System.nanoTime(), 120, "key source", null);
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
        assertThat(load("preload", "success").count()).isEqualTo(1);

        filter.history().recordLoad(LoadKind.REBUILD, System.nanoTime(), 0, "key source", "connection refused");
        filter.history().recordLoad(LoadKind.REBUILD, System.nanoTime(), 130, "key source", null);
        assertThat(load("preload", "success").count()).isEqualTo(1);
        assertThat(load("rebuild", "failure").count()).isEqualTo(1);
        assertThat(load("rebuild", "success").count()).isEqualTo(1);
        assertThat(meters.get("bloomguard.load.keys").tags("kind", "preload", "outcome", "success").summary()
                .totalAmount()).isEqualTo(120);
        assertThat(meters.get("bloomguard.load.keys").tags("kind", "rebuild", "outcome", "success").summary()
                .totalAmount()).isEqualTo(130);
    }

    /** A state change shows at the next scrape, with exactly one state at 1. */
    @Test
    void exactlyTheCurrentStateIsOne() {
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
        assertThat(statesAtOne()).containsExactly("loading");
        filter.finishLoading();
        assertThat(statesAtOne()).containsExactly("ready");
        filter.markIncomplete("a write's key was lost");
        assertThat(statesAtOne()).containsExactly("failed");
    }

    private Timer load(String kind, String outcome) {
        return meters.get("bloomguard.load").tags("filter", "users", "kind", kind, "outcome", outcome).timer();
    }

    private List<String> statesAtOne() {
        return meters.get("bloomguard.state").tag("filter", "users").gauges().stream()
                .filter(gauge -> gauge.value() == 1.0).map(gauge -> gauge.getId().getTag("state")).toList();
    }
}
