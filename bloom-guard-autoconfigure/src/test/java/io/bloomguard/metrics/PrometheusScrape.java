package io.bloomguard.metrics;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FeedSink;
import io.bloomguard.feed.FilterFeed;
import io.bloomguard.feed.WhenBehind;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterSpecBuilder;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What a Prometheus scrape of the binder's meters has, for the files in {@code docs/grafana} that query them. */
final class PrometheusScrape {

    private PrometheusScrape() {
    }

    /** Every series name a Prometheus scrape of one local and one redis filter's meters has. */
    static Set<String> names() {
        Set<String> names = new TreeSet<>();
        text().lines().filter(line -> !line.startsWith("#") && !line.isBlank())
                .map(line -> line.split("[{ ]", 2)[0]).forEach(names::add);
        return names;
    }

    /** The scrape itself, in Prometheus' text format. */
    static String text() {
        FilterSizing sizing = FilterSizing.of(1000, 0.01);
        // The redis filter is never started: binding its meters talks to no server.
        try (RedisFilterBackend redis = new RedisFilterBackend(() -> {
            throw new IllegalStateException("no Redis in this test");
        }, RedisBackendSettings.defaults())) {
            NamedBloomFilter local = new NamedBloomFilter(spec("users", BackendType.LOCAL),
                    LocalBloomFilter.create(sizing), FilterState.READY);
            NamedBloomFilter shared = new NamedBloomFilter(spec("orders", BackendType.REDIS),
                    redis.create("orders", sizing, 1), FilterState.LOADING);
            ScheduledExecutorService unused = Executors.newSingleThreadScheduledExecutor();
            try (FilterFeed feed = new FilterFeed(local, PrometheusScrape::idleFeed, feedSettings(), null, unused,
                    Clock.systemUTC())) {
                PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(local, shared))).bindTo(prometheus);
                return prometheus.scrape();
            }
            finally {
                unused.shutdownNow();
            }
        }
    }

    /** A feed never started: the local filter has one, so that its meters are bound. */
    private static ChangeFeed idleFeed() {
        return new ChangeFeed() {
            @Override
            public void start(@Nullable String from, FeedSink sink) {
            }

            @Override
            public String description() {
                return "idle";
            }

            @Override
            public void close() {
            }
        };
    }

    private static FeedSettings feedSettings() {
        return new FeedSettings("idle", Duration.ofSeconds(30), WhenBehind.PASS,
                new FeedSettings.Jdbc(null, Duration.ofSeconds(1), Duration.ofSeconds(30)),
                new FeedSettings.Postgres(null, "id", null, null, null, null, null, Map.of()));
    }

    private static FilterSpec spec(String name, BackendType backend) {
        FilterSpecBuilder spec = FilterSpec.builder(name).expectedSize(1000).errorRate(0.01).growth(GrowthPolicy.NONE);
        return ((backend == BackendType.REDIS) ? spec.redis(1, NearCopyMode.OFF) : spec).build();
    }
}
