package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.FreezableTcpProxy;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.TwoInstances;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A redis filter's meters against a real server: check latency, the breakers, the load, and its size as maintenance
 * reads it; and a scrape that answers at once while Redis hangs or is gone, since no meter waits on Redis.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisMetricsIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /**
     * What "at once" means for a scrape: well under the check timeout (200 ms in {@link TestRedisBackend#FAST}) and
     * far under the command timeout (5 s) that a meter reading Redis would wait out; a scrape of some fifty meters
     * takes well under a millisecond, so the margin covers a GC pause or a busy shared machine.
     */
    private static final Duration AT_ONCE = Duration.ofMillis(100);

    @Test
    void aRedisFiltersMetersFollowItAndAScrapeNeverWaitsOnRedis(RedisServerProcess server, TwoInstances two) {
        TestRedisBackend instance = two.behindProxy(port -> TestRedisBackend.on(port, TestRedisBackend.FAST));
        FreezableTcpProxy proxy = two.proxy();
        RedisBloomFilter backend = instance.backend.create("orders", SIZING, 1, 1);
        NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("orders")
                .expectedSize(SIZING.expectedSize()).errorRate(SIZING.errorRate()).growth(GrowthPolicy.NONE)
                .redis(1, NearCopyMode.OFF).build(), backend, FilterState.LOADING);
        MeterRegistry meters = new SimpleMeterRegistry();
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);

        assertThat(backend.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
        filter.finishLoading();
        Timer preload = meters.get("bloomguard.load").tags("kind", "preload", "outcome", "success").timer();
        assertThat(preload.count()).as("the startup build, heard from the backend").isEqualTo(1);
        assertThat(meters.get("bloomguard.load.keys").tags("kind", "preload", "outcome", "success").summary()
                .totalAmount()).isEqualTo(1000.0);
        assertThat(gauge(meters, "bloomguard.state", "ready")).isEqualTo(1.0);
        await("the fill read by maintenance").atMost(Duration.ofSeconds(5))
                .until(() -> gauge(meters, "bloomguard.elements", null) > 0);
        assertThat(gauge(meters, "bloomguard.elements", null)).isBetween(980.0, 1020.0);
        assertThat(gauge(meters, "bloomguard.capacity.ratio", null)).isBetween(0.049, 0.051);
        double fill = gauge(meters, "bloomguard.fill.ratio", null);
        assertThat(fill).as("1000 keys of k bits, few of them shared")
                .isBetween(1000.0 * SIZING.hashCount() / SIZING.bitSize() * 0.95,
                        1000.0 * SIZING.hashCount() / SIZING.bitSize());

        Timer checks = meters.get("bloomguard.redis.check").tag("filter", "orders").timer();
        for (long key = 0; key < 20; key++) {
            assertThat(filter.mightContain(key)).isTrue();
        }
        filter.backendMightContainAsync(5L).join();
        assertThat(checks.count()).as("every single-key check, blocking and async").isEqualTo(21);
        assertThat(checks.max(TimeUnit.MILLISECONDS)).isLessThan(200.0);
        assertThat(gauge(meters, "bloomguard.redis.breaker.open", "checks")).isZero();
        assertThat(gauge(meters, "bloomguard.redis.breaker.open", "commands")).isZero();

        proxy.freeze(); // a hung server: connections stay open, nothing answers
        assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(() -> filter.mightContain(1L));
        assertThat(checks.count()).as("a check that timed out counts too").isEqualTo(22);
        assertThat(checks.max(TimeUnit.MILLISECONDS)).as("a check that waited out its 200 ms timeout")
                .isGreaterThanOrEqualTo(190.0);
        // These test settings open the breaker on one failure when nothing answered in the 100 ms before it.
        await("the check breaker opens").atMost(Duration.ofSeconds(5))
                .until(() -> gauge(meters, "bloomguard.redis.breaker.open", "checks") == 1.0);
        assertThatExceptionOfType(RedisUnavailableException.class).isThrownBy(() -> filter.mightContain(1L));
        assertThat(checks.count()).as("a check the open breaker refused never reached Redis").isEqualTo(22);
        assertScrapedAtOnce(meters, "Redis hung");

        proxy.thaw();
        server.kill();
        assertScrapedAtOnce(meters, "Redis killed");
        await("the outage seen by maintenance, and the size still readable").atMost(Duration.ofSeconds(15))
                .until(() -> filter.stats().estimatesStale());
        assertThat(gauge(meters, "bloomguard.elements", null)).isBetween(980.0, 1020.0);
        assertScrapedAtOnce(meters, "Redis killed, outage noticed");
    }

    /**
     * Adds made while Redis does not answer are buffered for replay: the gauge counts them as they pile up, and falls
     * back to 0 once Redis answers again and takes them. A redis filter has no local heap gauge (its near copy has).
     */
    @Test
    void bufferedAddsRiseWhileRedisHangsAndFallToZeroOnceItAnswers(TwoInstances two) {
        // A short command timeout: the first add waits it out before the breaker opens and buffers the rest at once.
        RedisBackendSettings settings = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
                .commandTimeout(Duration.ofMillis(300)).build();
        TestRedisBackend instance = two.behindProxy(port -> TestRedisBackend.on(port, settings));
        FreezableTcpProxy proxy = two.proxy();
        RedisBloomFilter backend = instance.backend.create("buffered", SIZING, 1, 1);
        NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("buffered")
                .expectedSize(SIZING.expectedSize()).errorRate(SIZING.errorRate()).growth(GrowthPolicy.NONE)
                .redis(1, NearCopyMode.OFF).build(), backend, FilterState.LOADING);
        MeterRegistry meters = new SimpleMeterRegistry();
        new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
        assertThat(backend.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
        filter.finishLoading();
        assertThat(meters.find("bloomguard.local.size").gauges()).isEmpty();

        filter.put(5_000L);
        assertThat(buffered(meters)).as("Redis took the add").isZero();

        proxy.freeze();
        for (long key = 5_001; key <= 5_005; key++) {
            filter.put(key);
        }
        assertThat(buffered(meters)).as("five adds Redis did not take")
                .isEqualTo(5.0);
        assertScrapedAtOnce(meters, "adds buffered");

        proxy.thaw();
        await("the buffered adds replayed").atMost(Duration.ofSeconds(10))
                .until(() -> buffered(meters) == 0.0);
        for (long key = 5_000; key <= 5_005; key++) {
            assertThat(backend.mightContain(key)).as("key %d, in Redis", key).isTrue();
        }
    }

    private static double buffered(MeterRegistry meters) {
        return meters.get("bloomguard.redis.adds.buffered").tag("filter", "buffered").gauge().value();
    }

    /** Reads every meter's values, as a registry's scrape does, within {@link #AT_ONCE}. */
    private static void assertScrapedAtOnce(MeterRegistry meters, String when) {
        long start = System.nanoTime();
        int values = 0;
        for (Meter meter : meters.getMeters()) {
            for (io.micrometer.core.instrument.Measurement measurement : meter.measure()) {
                measurement.getValue();
                values++;
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(values).isGreaterThan(40);
        assertThat(took).as("%s: a scrape of %d values", when, values).isLessThan(AT_ONCE);
    }

    /** A gauge of the filter, by its one distinguishing tag value ({@code state} or {@code breaker}), if any. */
    private static double gauge(MeterRegistry meters, String name, String tagValue) {
        List<Gauge> gauges = meters.find(name).tag("filter", "orders").gauges().stream()
                .filter(g -> tagValue == null || g.getId().getTags().stream().anyMatch(t -> t.getValue().equals(tagValue)))
                .toList();
        assertThat(gauges).as(name + " " + tagValue).hasSize(1);
        return gauges.get(0).value();
    }

    private static List<Object> longs(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }
}
