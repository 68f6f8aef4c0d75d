package io.bloomguard.redis;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a user sees of an outage: one WARN per filter when it starts, however many calls fail, one INFO when Redis
 * answers again; and the filter's size and state stay readable meanwhile, marked stale, without waiting on Redis.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(RedisServerExtension.class)
class RedisOutageVisibilityIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private RedisServerProcess server;

    /** Each test kills the server; each starts on an empty, running one. */
    @BeforeEach
    void emptyServer(RedisServerProcess redis) {
        server = redis;
        server.restart();
    }

    @Test
    void aBurstOfChecksInAnOutageLogsOneWarningPerFilterAndTheRecoveryOneInfo(CapturedOutput output) {
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            List<RedisBloomFilter> filters = List.of(instance.backend.create("orders", SIZING, 1, 1),
                    instance.backend.create("users", SIZING, 1, 1));
            for (RedisBloomFilter filter : filters) {
                assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            }

            server.kill();
            for (int call = 0; call < 300; call++) {
                for (RedisBloomFilter filter : filters) {
                    try {
                        filter.mightContain((long) call);
                    }
                    catch (RedisUnavailableException ex) {
                        // the guard's on-backend-failure applies
                    }
                    filter.put(10_000L + call); // kept for replay
                }
            }
            // Maintenance keeps failing meanwhile, every refresh-interval: still one warning per filter.
            await("one warning per filter, for a while").during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(10))
                    .until(() -> lines(output, " WARN ", "Filter 'orders': Redis is unavailable").size() == 1
                            && lines(output, " WARN ", "Filter 'users': Redis is unavailable").size() == 1);

            server.restart();
            await("both filters logged that Redis answers again").atMost(Duration.ofSeconds(15)).until(() -> 
                    lines(output, " INFO ", "Filter 'orders': Redis answers again").size() == 1
                    && lines(output, " INFO ", "Filter 'users': Redis answers again").size() == 1);
            await("still once each, a while later").during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
                    .until(() -> lines(output, " INFO ", "Filter 'orders': Redis answers again").size() == 1
                            && lines(output, " INFO ", "Filter 'users': Redis answers again").size() == 1
                            && lines(output, " WARN ", "Redis is unavailable").size() == 2);
        }
    }

    @Test
    void sizeStatsAndStateStayReadableWhileRedisIsDownMarkedStale() {
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter backend = instance.backend.create("sizes", SIZING, 1, 1);
            NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("sizes")
                    .expectedSize(SIZING.expectedSize()).errorRate(SIZING.errorRate()).growth(GrowthPolicy.NONE)
                    .redis(1, NearCopyMode.OFF).build(), backend, FilterState.LOADING);
            assertThat(backend.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            filter.finishLoading();
            await("the fill read by maintenance").atMost(Duration.ofSeconds(5))
                    .until(() -> filter.stats().estimatesAsOf() != null);
            long count = filter.approximateElementCount();
            double fpp = filter.expectedFpp();
            assertThat(count).isBetween(980L, 1020L);
            assertThat(fpp).isPositive();
            assertThat(filter.stats().estimatesStale()).isFalse();

            server.kill();
            // Noticed once a refresh misses command-timeout (5 s in these settings).
            await("the outage noticed by maintenance").atMost(Duration.ofSeconds(15))
                    .until(() -> filter.stats().estimatesStale());
            long start = System.nanoTime();
            for (int call = 0; call < 1000; call++) {
                FilterStats stats = filter.stats();
                assertThat(stats.estimatesStale()).isTrue();
                assertThat(filter.approximateElementCount()).isEqualTo(count);
                assertThat(filter.expectedFpp()).isEqualTo(fpp);
                assertThat(filter.state()).isEqualTo(FilterState.READY);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("1000 of each answered without waiting on Redis").isLessThan(Duration.ofSeconds(1));
            FillEstimate last = backend.lastEstimate();
            assertThat(last.asOf()).isEqualTo(filter.stats().estimatesAsOf());

            server.restart(); // empty: the filter rebuilds itself from its key source
            await("fresh again once Redis answers").atMost(Duration.ofSeconds(15))
                    .until(() -> !filter.stats().estimatesStale() && filter.stats().estimatesAsOf().isAfter(last.asOf()));
        }
    }

    private static List<String> lines(CapturedOutput output, String level, String text) {
        return output.getOut().lines().filter(line -> line.contains(level) && line.contains(text))
                .collect(Collectors.toList());
    }

    private static List<Object> longs(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }
}
