package io.bloomguard.autoconfigure;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.registry.FilterSpec;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bloom-guard.filters.<name>.redis.near-copy}: bound per filter, and counted in the startup heap check. */
class NearCopyPropertyTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class));

    @Test
    void aRedisFilterKeepsANearCopyWhenAskedAndALocalOneIgnoresIt() {
        BloomGuardProperties properties = new Binder(new MapConfigurationPropertySource(pairs(
                "bloom-guard.filters.users.backend", "redis",
                "bloom-guard.filters.users.redis.near-copy", "true",
                "bloom-guard.filters.orders.backend", "redis",
                "bloom-guard.filters.items.redis.near-copy", "true",
                "bloom-guard.filters.tokens.backend", "redis",
                "bloom-guard.filters.tokens.redis.near-copy", "ordered",
                "bloom-guard.filters.carts.backend", "redis",
                "bloom-guard.filters.carts.redis.near-copy", "off",
                "bloom-guard.filters.layers.backend", "redis",
                "bloom-guard.filters.layers.growth", "scale",
                "bloom-guard.filters.layers.redis.near-copy", "ordered",
                "bloom-guard.filters.counts.backend", "redis",
                "bloom-guard.filters.counts.type", "counting",
                "bloom-guard.filters.counts.redis.near-copy", "ordered")))
                .bind("bloom-guard", BloomGuardProperties.class).get();
        List<FilterSpec> specs = FilterSpecResolver.resolve(properties);
        assertThat(specs).filteredOn(spec -> spec.name().equals("users")).singleElement()
                .as("true is on").extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.ON);
        assertThat(specs).filteredOn(spec -> spec.name().equals("tokens")).singleElement()
                .extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.ORDERED);
        assertThat(specs).filteredOn(spec -> spec.name().equals("carts")).singleElement()
                .extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.OFF);
        assertThat(specs).filteredOn(spec -> spec.name().equals("layers")).singleElement()
                .as("one that grows by layers").extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.ORDERED);
        assertThat(specs).filteredOn(spec -> spec.name().equals("counts")).singleElement()
                .as("a counting one").extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.ORDERED);
        assertThat(specs).filteredOn(spec -> spec.name().equals("orders")).singleElement()
                .as("off unless asked for").extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.OFF);
        assertThat(specs).filteredOn(spec -> spec.name().equals("items")).singleElement()
                .as("a local filter").extracting(NearCopyPropertyTest::nearCopy).isEqualTo(NearCopyMode.OFF);
    }

    private static NearCopyMode nearCopy(FilterSpec spec) {
        return (spec.backend() instanceof FilterSpec.Redis redis) ? redis.nearCopy() : NearCopyMode.OFF;
    }

    private static Map<String, String> pairs(String... keysAndValues) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @Test
    void aNearCopyModeThatDoesNotExistFailsStartupNamingTheValues() {
        runner.withPropertyValues("bloom-guard.filters.users.backend=redis",
                "bloom-guard.filters.users.redis.near-copy=always").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("always");
                });
    }

    @Test
    void aRedisFilterWhoseNearCopyAndRebuildDoNotFitTheHeapTogetherFailsStartup() {
        // About 60% of the heap: alone it fits, with its near copy beside a rebuild it needs 120%.
        long heap = Runtime.getRuntime().maxMemory();
        long expectedSize = (long) (0.6 * heap / FilterSizing.of(1_000_000, 0.01).byteSize() * 1_000_000);
        runner.withPropertyValues("bloom-guard.filters.users.backend=redis",
                "bloom-guard.filters.users.expected-size=" + expectedSize,
                "bloom-guard.filters.users.redis.near-copy=true").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("for property bloom-guard.filters.users.expected-size")
                            .contains("twice (its near copy, and the bits of a rebuild)")
                            .contains("turn redis.near-copy off");
                });
    }

    @Test
    void nearCopiesCountWithTheLocalFiltersInTheHeapTheyShare() {
        // Each about 35% of the heap: a local filter and two near copies stay, and a redis filter is built beside them.
        long heap = Runtime.getRuntime().maxMemory();
        long expectedSize = (long) (0.35 * heap / FilterSizing.of(1_000_000, 0.01).byteSize() * 1_000_000);
        long each = FilterSizing.of(expectedSize, 0.01).byteSize() >> 20;
        runner.withPropertyValues("bloom-guard.filters.a.expected-size=" + expectedSize,
                "bloom-guard.filters.b.expected-size=" + expectedSize, "bloom-guard.filters.b.backend=redis",
                "bloom-guard.filters.b.redis.near-copy=true").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("for property bloom-guard.filters")
                            .contains("the local filters a (" + each + " MiB) and the near copies of b (" + each
                                    + " MiB) and the largest redis filter while it is built, b (" + each + " MiB), need ")
                            .contains("MiB together, more than the heap")
                            .contains("turn a redis.near-copy off");
                });
    }

    @Test
    void aNearCopyLargerThanAJavaArrayFailsStartup() {
        runner.withPropertyValues("bloom-guard.filters.users.backend=redis",
                "bloom-guard.filters.users.expected-size=20000000000",
                "bloom-guard.filters.users.redis.near-copy=true").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("Invalid value 'on' for property bloom-guard.filters.users.redis.near-copy")
                            .contains("at most 16 GiB");
                });
    }
}
