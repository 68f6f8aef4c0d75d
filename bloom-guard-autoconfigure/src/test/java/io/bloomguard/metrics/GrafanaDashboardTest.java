package io.bloomguard.metrics;

import com.jayway.jsonpath.JsonPath;
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
        Set<String> scraped = PrometheusScrape.names();
        assertThat(scraped).as("the scrape").contains("bloomguard_checks_total", "bloomguard_redis_breaker_open");
        assertThat(queried).as("metrics the dashboard queries, all published").isSubsetOf(scraped);
        assertThat(queried).as("the panels the dashboard promises").contains("bloomguard_checks_total",
                "bloomguard_fpp_measured", "bloomguard_fpp_configured", "bloomguard_false_positives_total",
                "bloomguard_fill_ratio", "bloomguard_capacity_ratio", "bloomguard_state",
                "bloomguard_redis_breaker_open", "bloomguard_load_seconds_max", "bloomguard_load_seconds_count",
                "bloomguard_local_size_bytes", "bloomguard_redis_adds_buffered",
                "bloomguard_load_last_success_time_seconds");
    }

    /**
     * One application's instances, or one instance, can be picked: the variables list them, and every series a panel
     * reads is narrowed to the ones picked ("All" matches series without the label too).
     */
    @Test
    void everyPanelQueryIsNarrowedToTheApplicationInstanceAndFilterPicked() throws IOException {
        String json = Files.readString(DASHBOARD);
        assertThat(JsonPath.<List<String>>read(json, "$.templating.list[*].name"))
                .containsExactly("application", "instance", "filter");
        assertThat(JsonPath.<List<String>>read(json, "$.templating.list[*].definition")).containsExactly(
                "label_values(bloomguard_state, application)",
                "label_values(bloomguard_state{application=~\"$application\"}, instance)",
                "label_values(bloomguard_state{application=~\"$application\", instance=~\"$instance\"}, filter)");
        assertThat(JsonPath.<List<Boolean>>read(json, "$.templating.list[*].multi")).containsOnly(true);
        assertThat(JsonPath.<List<Boolean>>read(json, "$.templating.list[*].includeAll")).containsOnly(true);
        assertThat(JsonPath.<List<String>>read(json, "$.templating.list[*].allValue")).containsOnly(".*");
        Pattern selector = Pattern.compile("\\bbloomguard_[a-z0-9_]+(\\{[^}]*})?");
        List<String> selectors = new java.util.ArrayList<>();
        for (String expr : JsonPath.<List<String>>read(json, "$.panels[*].targets[*].expr")) {
            Matcher metric = selector.matcher(expr);
            while (metric.find()) {
                selectors.add(metric.group());
            }
        }
        assertThat(selectors).hasSizeGreaterThan(20).allSatisfy(series -> assertThat(series)
                .contains("application=~\"$application\"", "instance=~\"$instance\""));
        assertThat(selectors).filteredOn(series -> !series.startsWith("bloomguard_redis_breaker_open"))
                .allSatisfy(series -> assertThat(series).contains("filter=~\"$filter\""));
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
}
