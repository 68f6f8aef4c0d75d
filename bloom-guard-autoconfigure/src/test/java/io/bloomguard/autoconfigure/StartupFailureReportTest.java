package io.bloomguard.autoconfigure;

import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * What a user sees in the log when the configuration is wrong: Spring Boot's failure report, or a warning for what
 * environment variables and system properties set.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTest {

    @Test
    void unknownBackendListsTheValidOnes(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.filters.users.backend=redsi"));
        assertThat(output).contains("APPLICATION FAILED TO START").contains("bloom-guard.filters.users.backend")
                .contains("redsi").contains("LOCAL").contains("REDIS");
    }

    @Test
    void unknownModeListsTheValidOnes(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.defaults.mode=strict"));
        assertThat(output).contains("bloom-guard.defaults.mode").contains("ENFORCE").contains("SHADOW").contains("OFF");
    }

    @Test
    void unknownTypeAndGrowthListTheValidOnes(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.filters.users.type=countng"));
        assertThat(output).contains("bloom-guard.filters.users.type").contains("countng").contains("BLOOM")
                .contains("COUNTING");
        assertThatException().isThrownBy(() -> run("--bloom-guard.defaults.growth=grow"));
        assertThat(output).contains("bloom-guard.defaults.growth").contains("NONE").contains("REBUILD")
                .contains("SCALE");
    }

    @Test
    void anUnknownCheckObservationsValueListsTheValidOnes(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.observations.checks=always"));
        assertThat(output).contains("APPLICATION FAILED TO START").contains("bloom-guard.observations.checks")
                .contains("always").contains("OFF").contains("ON").contains("UNDER_PARENT");
    }

    /** A typo would otherwise leave the filter on its defaults without a word. */
    @Test
    void anUnknownPropertyIsReported(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.filters.users.eror-rate=0.001"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Unknown property bloom-guard.filters.users.eror-rate (value '0.001'")
                .contains("bloom-guard.filters.<name> takes: backend, error-rate, expected-size, feed.*, growth, mode,"
                        + " on-add-failure, on-backend-failure, preload.*, puts-only, rebuild.*, redis.*, type")
                .contains("See docs/properties.md.");
    }

    @Test
    void anUnknownPropertyInAnApplicationFileIsReported(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--spring.config.location=classpath:unknown-property.properties"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Unknown property bloom-guard.filters.users.eror-rate (value '0.001', from class path"
                        + " resource [unknown-property.properties]")
                .contains("bloom-guard.filters.<name> takes: backend, error-rate,");
    }

    /** Analyzers of equal order run in classpath order, and Spring Boot's generic one would answer first. */
    @Test
    void anUnknownPropertyIsReportedWhenTheStarterComesLastOnTheClasspath(CapturedOutput output) throws IOException {
        ClassLoader starterLast = new StarterFactoriesLastClassLoader();
        assertThat(Collections.list(starterLast.getResources(SpringFactoriesLoader.FACTORIES_RESOURCE_LOCATION)))
                .hasSizeGreaterThan(1).last().asString().startsWith(StarterFactoriesLastClassLoader.starter());
        SpringApplication application = new SpringApplication(new DefaultResourceLoader(starterLast),
                MinimalApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--bloom-guard.filters.users.eror-rate=0.001"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Unknown property bloom-guard.filters.users.eror-rate (value '0.001'")
                .contains("bloom-guard.filters.<name> takes: backend, error-rate,")
                .doesNotContain("were left unbound");
    }

    /** A build tool's BLOOMGUARD_VERSION reads as bloom-guard.version, but it is not the application's setting. */
    @Test
    void anUnknownEnvironmentVariableIsAWarningNotAFailure(CapturedOutput output) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("BLOOMGUARD_VERSION", "1.0", "BLOOMGUARD_FILTERS_USERS_ERORRATE", "0.001")));
        SpringApplication application = new SpringApplication(MinimalApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setEnvironment(environment);
        try (ConfigurableApplicationContext context = application.run("--bloom-guard.filters.users.expected-size=10")) {
            assertThat(context.getBean(BloomFilterRegistry.class).get("users").spec().sizing().expectedSize()).isEqualTo(10);
        }
        assertThat(output).doesNotContain("APPLICATION FAILED TO START")
                .containsPattern("WARN .*Ignoring environment variable BLOOMGUARD_VERSION \\(value '1.0'\\):"
                        + " it reads as bloom-guard.version, which bloom-guard does not know; bloom-guard takes: defaults.\\*,"
                        + " enabled, filters.\\*, observations.\\*, redis.\\*")
                .contains("Ignoring environment variable BLOOMGUARD_FILTERS_USERS_ERORRATE (value '0.001'): it reads as"
                        + " bloom-guard.filters.users.erorrate, which bloom-guard does not know;"
                        + " bloom-guard.filters.<name> takes: backend, error-rate,");
    }

    @Test
    void anUnknownSystemPropertyIsAWarningNotAFailure(CapturedOutput output) {
        System.setProperty("bloomguard.version", "1.0");
        try {
            run("--bloom-guard.filters.users.expected-size=10");
        }
        finally {
            System.clearProperty("bloomguard.version");
        }
        assertThat(output).doesNotContain("APPLICATION FAILED TO START")
                .containsPattern("WARN .*Ignoring system property bloomguard.version \\(value '1.0'\\): it reads as"
                        + " bloom-guard.version, which bloom-guard does not know; bloom-guard takes:");
    }

    @Test
    void anUnknownGroupIsReportedWithWhatItsLevelTakes(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.filters.users.cache.ttl=5m"));
        assertThat(output).contains("Unknown property bloom-guard.filters.users.cache.ttl")
                .contains("bloom-guard.filters.<name> takes: backend,");
    }

    @Test
    void invalidErrorRateIsExplained(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run("--bloom-guard.filters.users.error-rate=2"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Invalid value '2.0' for property bloom-guard.filters.users.error-rate")
                .contains("Update bloom-guard.filters.users.error-rate in your application's configuration.");
    }

    /** A report, not a bean-creation stack trace. */
    @Test
    void aKeySourceForAnUnknownFilterIsExplained(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run(KeySourceApplication.class,
                "--bloom-guard.filters.users.expected-size=10"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Key source bean 'userKeys' is for filter 'userz', which is not configured;"
                        + " configured: users")
                .contains("or declare bloom-guard.filters.userz in your configuration.");
    }

    /** Spring's own report says only that no bean qualifies. */
    @Test
    void aFilterInjectedByAnUnknownNameIsExplained(CapturedOutput output) {
        assertThatException().isThrownBy(() -> run(CrawlerApplication.class,
                "--bloom-guard.filters.users.expected-size=10", "--bloom-guard.filters.skus.expected-size=10"));
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("No bloom-guard filter named 'seen-urls' to inject into")
                .contains("configured filters: users, skus")
                .contains("or declare bloom-guard.filters.seen-urls in your configuration");
    }

    private static void run(String... args) {
        run(MinimalApplication.class, args);
    }

    private static void run(Class<?> source, String... args) {
        SpringApplication application = new SpringApplication(source);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.run(args).close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class MinimalApplication {
    }

    /** Lists bloom-guard's META-INF/spring.factories after every other jar's, as when the starter is declared last. */
    static final class StarterFactoriesLastClassLoader extends ClassLoader {

        StarterFactoriesLastClassLoader() {
            super(StartupFailureReportTest.class.getClassLoader());
        }

        /** Where bloom-guard's classes and its spring.factories are loaded from. */
        static String starter() {
            return BloomGuardFailureAnalyzer.class.getProtectionDomain().getCodeSource().getLocation().toString();
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            List<URL> resources = Collections.list(super.getResources(name));
            if (name.equals(SpringFactoriesLoader.FACTORIES_RESOURCE_LOCATION)) {
                resources.sort(Comparator.comparing((URL url) -> url.toString().startsWith(starter())));
            }
            return Collections.enumeration(resources);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CrawlerApplication extends MinimalApplication {

        @Bean
        Object crawler(@Qualifier("seen-urls") NamedBloomFilter seen) {
            return seen;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class KeySourceApplication extends MinimalApplication {

        @Bean
        BloomKeySource userKeys() {
            return BloomKeySource.of("userz", Stream::of);
        }
    }
}
