package io.bloomguard.metrics;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alert rules in {@code docs/grafana} query only series the binder really publishes, by the names a Prometheus
 * scrape of them has, and their unit tests feed them those series. What the rules do is tested by
 * {@code promtool test rules} ({@code .ci/check-alerts}), which this build does not need.
 */
class PrometheusAlertRulesTest {

    private static final Path RULES = Path.of("..", "docs", "grafana", "bloom-guard-alerts.yml");

    private static final Path RULES_TEST = Path.of("..", "docs", "grafana", "bloom-guard-alerts-test.yml");

    @Test
    void everyMetricTheAlertRulesQueryIsOneThePrometheusScrapeHas() throws IOException {
        Set<String> queried = matches(Pattern.compile("\\bbloomguard_[a-z0-9_]+"), Files.readString(RULES));
        assertThat(queried).as("metrics the alert rules query, all published").isSubsetOf(PrometheusScrape.names())
                .contains("bloomguard_state", "bloomguard_false_positives_total", "bloomguard_checks_total",
                        "bloomguard_fpp_configured", "bloomguard_over_capacity", "bloomguard_redis_breaker_open",
                        "bloomguard_redis_adds_buffered", "bloomguard_redis_losses_total",
                        "bloomguard_shadow_false_negatives_total", "bloomguard_rebuild_held");
    }

    @Test
    void theRulesUnitTestsFeedThemSeriesTheScrapeHas() throws IOException {
        Set<String> fed = matches(Pattern.compile("series: '(bloomguard_[a-z0-9_]+)\\{"), Files.readString(RULES_TEST));
        assertThat(fed).isNotEmpty().isSubsetOf(PrometheusScrape.names());
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add((matcher.groupCount() > 0) ? matcher.group(1) : matcher.group());
        }
        return found;
    }
}
