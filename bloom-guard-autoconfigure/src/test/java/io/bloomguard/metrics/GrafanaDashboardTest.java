package io.bloomguard.metrics;

import com.jayway.jsonpath.JsonPath;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
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
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard in {@code docs/grafana} queries only series the binder really publishes, by the names a
 * Prometheus scrape of them has, and every panel reads the data source the dashboard asks for when imported.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "bloom-guard-dashboard.json");

    private static final Pattern METRIC = Pattern.compile("\\bbloomguard_[a-z0-9_]+");

    @Test
    void everyMetricTheDashboardQueriesIsOneThePrometheusScrapeHas() throws IOException {
        Set<String> queried = new TreeSet<>();
        for (String expr : JsonPath.<List<String>>read(Files.readString(DASHBOARD), "$.panels[*].targets[*].expr")) {
            Matcher metric = METRIC.matcher(expr);
            while (metric.find()) {
                queried.add(metric.group());
            }
        }
        Set<String> scraped = scrapedNames();
        assertThat(scraped).as("the scrape").contains("bloomguard_checks_total", "bloomguard_redis_breaker_open");
        assertThat(queried).as("metrics the dashboard queries, all published").isSubsetOf(scraped);
        assertThat(queried).as("the panels the dashboard promises").contains("bloomguard_checks_total",
                "bloomguard_fpp_measured", "bloomguard_fpp_configured", "bloomguard_false_positives_total",
                "bloomguard_fill_ratio", "bloomguard_capacity_ratio", "bloomguard_state",
                "bloomguard_redis_breaker_open", "bloomguard_load_seconds_max", "bloomguard_load_seconds_count");
    }

    @Test
    void everyPanelReadsTheImportedPrometheusDataSource() throws IOException {
        String json = Files.readString(DASHBOARD);
        assertThat(JsonPath.<List<String>>read(json, "$.__inputs[*].name")).containsExactly("DS_PROMETHEUS");
        List<String> panelSources = JsonPath.read(json, "$.panels[?(@.type != 'row')].datasource.uid");
        List<String> targetSources = JsonPath.read(json, "$.panels[*].targets[*].datasource.uid");
        assertThat(panelSources).isNotEmpty().containsOnly("${DS_PROMETHEUS}");
        assertThat(targetSources).isNotEmpty().containsOnly("${DS_PROMETHEUS}");
        assertThat(JsonPath.<List<String>>read(json, "$.templating.list[*].datasource.uid"))
                .containsOnly("${DS_PROMETHEUS}");
    }

    /** Every series name a Prometheus scrape of one local and one redis filter's meters has. */
    private static Set<String> scrapedNames() {
        FilterSizing sizing = FilterSizing.of(1000, 0.01);
        // The redis filter is never started: binding its meters talks to no server.
        try (RedisFilterBackend redis = new RedisFilterBackend(() -> {
            throw new IllegalStateException("no Redis in this test");
        }, RedisBackendSettings.defaults())) {
            NamedBloomFilter local = new NamedBloomFilter(spec("users", BackendType.LOCAL),
                    LocalBloomFilter.create(sizing), FilterState.READY);
            NamedBloomFilter shared = new NamedBloomFilter(spec("orders", BackendType.REDIS),
                    redis.create("orders", sizing, 1), FilterState.LOADING);
            PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(local, shared))).bindTo(prometheus);
            Set<String> names = new TreeSet<>();
            prometheus.scrape().lines().filter(line -> !line.startsWith("#") && !line.isBlank())
                    .map(line -> line.split("[{ ]", 2)[0]).forEach(names::add);
            return names;
        }
    }

    private static FilterSpec spec(String name, BackendType backend) {
        FilterSpecBuilder spec = FilterSpec.builder(name).expectedSize(1000).errorRate(0.01).growth(GrowthPolicy.NONE);
        return ((backend == BackendType.REDIS) ? spec.redis(1, NearCopyMode.OFF) : spec).build();
    }
}
