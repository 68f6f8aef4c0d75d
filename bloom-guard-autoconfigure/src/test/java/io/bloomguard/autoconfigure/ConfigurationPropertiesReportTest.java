package io.bloomguard.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint.ConfigurationPropertiesBeanDescriptor;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/configprops} lists {@code bloom-guard.*}, each filter with the values it ended up with: its own,
 * and those it inherits from the defaults.
 */
class ConfigurationPropertiesReportTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class));

    @Test
    void configpropsShowsEachFilterWithItsOwnAndItsInheritedValues() {
        runner.withPropertyValues("bloom-guard.defaults.expected-size=5000", "bloom-guard.defaults.mode=shadow",
                        "bloom-guard.filters.users.error-rate=0.001", "bloom-guard.filters.seen-urls.puts-only=true",
                        "bloom-guard.redis.key-prefix=app:")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConfigurationPropertiesBeanDescriptor bloomGuard = bloomGuard(context);

                    assertThat(bloomGuard.getPrefix()).isEqualTo("bloom-guard");
                    Map<String, Object> users = filter(bloomGuard, "users");
                    assertThat(users).containsEntry("errorRate", 0.001).containsEntry("expectedSize", 5000L)
                            .containsEntry("mode", "SHADOW").containsEntry("backend", "LOCAL")
                            .containsEntry("growth", "REBUILD");
                    assertThat(filter(bloomGuard, "seen-urls")).containsEntry("putsOnly", true)
                            .containsEntry("growth", "SCALE");
                    assertThat(section(bloomGuard.getProperties(), "redis")).containsEntry("keyPrefix", "app:");
                    assertThat(section(bloomGuard.getProperties(), "defaults")).containsEntry("expectedSize", 5000L);
                });
    }

    /** A filter a {@code FilterSpecCustomizer} adjusted shows the values it ended up with, the customizer's too. */
    @Test
    void configpropsShowsWhatACustomizerSet() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=1000")
                .withBean(io.bloomguard.registry.FilterSpecCustomizer.class,
                        () -> io.bloomguard.registry.FilterSpecCustomizer.of("users", spec -> spec.expectedSize(7000)))
                .run(context -> {
                    context.getBean(io.bloomguard.registry.BloomFilterRegistry.class);
                    assertThat(filter(bloomGuard(context), "users")).containsEntry("expectedSize", 7000L);
                });
    }

    /** The report is only a view: unknown names still stop startup, and injecting the properties still works. */
    @Test
    void anUnknownPropertyStillStopsStartup() {
        runner.withPropertyValues("bloom-guard.filters.users.eror-rate=0.001")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("bloom-guard.filters.users.eror-rate"));
    }

    private static ConfigurationPropertiesBeanDescriptor bloomGuard(ApplicationContext context) {
        ConfigurationPropertiesReportEndpoint endpoint = new ConfigurationPropertiesReportEndpoint(List.of(),
                Show.ALWAYS);
        endpoint.setApplicationContext(context);
        List<ConfigurationPropertiesBeanDescriptor> beans = endpoint.configurationPropertiesWithPrefix("bloom-guard")
                .getContexts().values().stream().flatMap(beansOfContext -> beansOfContext.getBeans().values().stream())
                .toList();
        assertThat(beans).hasSize(1);
        return beans.get(0);
    }

    private static Map<String, Object> filter(ConfigurationPropertiesBeanDescriptor bloomGuard, String name) {
        return section(section(bloomGuard.getProperties(), "filters"), name);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, ?> properties, String name) {
        assertThat(properties).containsKey(name);
        return (Map<String, Object>) properties.get(name);
    }
}
