package io.bloomguard.metrics;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.RebuildableLocalFilter;
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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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

    /** A local filter's heap is its bits: what the endpoint shows as {@code layout.bytes}. */
    @Test
    void aLocalFiltersHeapGaugeIsItsSizeInBytes() {
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
        assertThat(gauge("bloomguard.local.size")).isEqualTo(filter.byteSize())
                .isEqualTo(FilterSizing.of(1000, 0.01).byteSize()).isGreaterThan(1000);
        assertThat(meters.find("bloomguard.redis.adds.buffered").gauges()).as("Redis filters only").isEmpty();
    }

    /**
     * The last successful load is a time (seconds since the epoch) that moves with each rebuild that completes and
     * stays where it was when one fails; before the first it is NaN, so that no age can be computed from it.
     */
    @Test
    void theLastSuccessfulLoadMovesWithEachCompletedRebuildAndNotWithAFailedOne() {
        AtomicBoolean sourceDown = new AtomicBoolean();
        NamedBloomFilter local = new NamedBloomFilter(filter.spec(),
                new RebuildableLocalFilter(FilterSizing.of(1000, 0.01), Duration.ZERO), FilterState.LOADING);
        local.keySource(batches -> {
            if (sourceDown.get()) {
                throw new IllegalStateException("connection refused");
            }
            List<Object> keys = LongStream.range(0, 100).boxed().collect(Collectors.toList());
            batches.accept(keys);
            return keys.size();
        });
        local.finishLoading();
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(local))).bindTo(meters);
        assertThat(gauge("bloomguard.load.last.success.time")).as("nothing loaded yet").isNaN();

        long beforeFirst = System.currentTimeMillis();
        local.rebuild();
        double first = gauge("bloomguard.load.last.success.time");
        assertThat(first).isBetween(beforeFirst / 1000.0, System.currentTimeMillis() / 1000.0);

        sourceDown.set(true);
        assertThatThrownBy(local::rebuild).hasMessageContaining("connection refused");
        assertThat(gauge("bloomguard.load.last.success.time")).as("a failed rebuild").isEqualTo(first);

        sourceDown.set(false);
        await("the clock past the first rebuild").until(() -> System.currentTimeMillis() > first * 1000);
        long beforeSecond = System.currentTimeMillis();
        local.rebuild();
        assertThat(gauge("bloomguard.load.last.success.time")).isGreaterThan(first)
                .isBetween(beforeSecond / 1000.0, System.currentTimeMillis() / 1000.0);
    }

    private double gauge(String name) {
        return meters.get(name).tag("filter", "users").gauge().value();
    }

    private Timer load(String kind, String outcome) {
        return meters.get("bloomguard.load").tags("filter", "users", "kind", kind, "outcome", outcome).timer();
    }

    private List<String> statesAtOne() {
        return meters.get("bloomguard.state").tag("filter", "users").gauges().stream()
                .filter(gauge -> gauge.value() == 1.0).map(gauge -> gauge.getId().getTag("state")).toList();
    }
}
