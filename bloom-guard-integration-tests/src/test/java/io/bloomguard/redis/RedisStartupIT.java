package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.preload.KeyReadScope;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with several {@code redis} filters loads them at startup in about one rebuild grace, not one
 * grace per filter: their graces overlap, and each still reads its key source a whole grace after announcing its
 * generation.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisStartupIT {

    private static final Duration GRACE = Duration.ofSeconds(1);

    private static final int FILTERS = 4;

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    @Test
    void filtersLoadedTogetherAtStartupWaitOutOneGraceNotOneEach() {
        RedisBackendSettings settings = RedisBackendSettingsBuilder.from(RedisBackendSettings.defaults())
                .keyPrefix("startup:")
                .checkTimeout(Duration.ofMillis(200))
                .commandTimeout(Duration.ofSeconds(5))
                .rebuildGrace(GRACE)
                .build();
        Map<String, Long> readAt = new ConcurrentHashMap<>();
        try (TestRedisBackend app = TestRedisBackend.on(server, settings)) {
            List<NamedBloomFilter> filters = new ArrayList<>();
            List<BloomKeySource> sources = new ArrayList<>();
            for (int i = 0; i < FILTERS; i++) {
                String name = "startup-" + i;
                FilterSpec spec = FilterSpec.builder(name).expectedSize(10_000).errorRate(0.01)
                        .growth(GrowthPolicy.NONE).redis(1, NearCopyMode.OFF).build();
                filters.add(new NamedBloomFilter(spec, app.backend.create(name, FilterSizing.of(10_000, 0.01), 1),
                        FilterState.LOADING));
                sources.add(BloomKeySource.of(name, () -> {
                    readAt.put(name, System.nanoTime());
                    return LongStream.range(0, 1_000).boxed();
                }));
            }
            FilterPreloader preloader = new FilterPreloader(new FixedBloomFilterRegistry(filters), sources,
                    KeyReadScope.DIRECT, Map::of);

            long start = System.nanoTime();
            preloader.preloadAll();
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(preloader.results()).hasSize(FILTERS);
            for (NamedBloomFilter filter : filters) {
                assertThat(filter.trustedToReject()).as("%s ready", filter.name()).isTrue();
                assertThat(filter.mightContain(999L)).isTrue();
                assertThat(Duration.ofNanos(readAt.get(filter.name()) - start)).as("%s read after its grace",
                        filter.name()).isGreaterThanOrEqualTo(GRACE);
            }
            // One after another they would take 4 graces and more; together, one grace and the builds (ms each).
            assertThat(took).as("startup of %d filters with a %d ms grace each", FILTERS, GRACE.toMillis())
                    .isLessThan(GRACE.multipliedBy(2));
        }
    }
}
