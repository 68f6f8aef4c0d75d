package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.core.BackendUnavailableException;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.guard.CheckObserver;
import io.bloomguard.observation.BloomGuardObservationContext;
import io.bloomguard.observation.BloomGuardObservationConvention;
import io.bloomguard.observation.DefaultBloomGuardObservationConvention;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.Optional;
import java.util.stream.Stream;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With an {@code ObservationRegistry}, every call the guard checks is a {@code bloomguard.check} observation tagged
 * with its filter and what the guard did, so that a trace shows "rejected by filter users"; without one, or without
 * Micrometer, nothing is observed and the guard works as before.
 */
class CheckObservationTest {

    /** Absent from the users filter (FixedSeedFilters' seed), which holds 1, 2 and 3. */
    private static final long ABSENT = 999_999L;

    private final TestObservationRegistry observations = TestObservationRegistry.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
            .withUserConfiguration(FixedSeedFilters.class)
            .withPropertyValues("bloom-guard.filters.users.expected-size=100",
                    "bloom-guard.filters.skus.expected-size=100", "bloom-guard.filters.skus.mode=shadow",
                    "bloom-guard.filters.orders.expected-size=100", "bloom-guard.filters.orders.mode=off")
            .withBean("users", BloomKeySource.class, () -> BloomKeySource.of("users", () -> Stream.of(1L, 2L, 3L)))
            .withBean("skus", BloomKeySource.class, () -> BloomKeySource.of("skus", Stream::of))
            .withBean("orders", BloomKeySource.class, () -> BloomKeySource.of("orders", Stream::of))
            .withBean(Lookups.class);

    private final ApplicationContextRunner observed = runner.withBean(ObservationRegistry.class, () -> observations);

    @Test
    void aRejectedCallIsAnObservationOfItsFilterAndOutcome() {
        observed.run(context -> {
            lookups(loaded(context)).user(ABSENT);
            assertThat(observations).hasSingleObservationThat()
                    .hasNameEqualTo("bloomguard.check")
                    .hasContextualNameEqualTo("bloom-guard check users")
                    .hasLowCardinalityKeyValue("filter", "users")
                    .hasLowCardinalityKeyValue("outcome", "rejected")
                    .hasLowCardinalityKeyValue("reason", "none")
                    .hasBeenStarted()
                    .hasBeenStopped();
            assertThat(observations).hasHandledContextsThatSatisfy(contexts -> assertThat(contexts)
                    .flatMap(observation -> observation.getAllKeyValues().stream().map(KeyValue::getValue).toList())
                    .as("the key is never a key value").noneMatch(value -> value.contains(Long.toString(ABSENT))));
        });
    }

    @Test
    void aPassedCallIsObservedAsPassed() {
        observed.run(context -> {
            assertThat(lookups(loaded(context)).user(2L)).contains("user 2");
            assertThat(observations).hasSingleObservationThat().hasNameEqualTo("bloomguard.check")
                    .hasLowCardinalityKeyValue("filter", "users")
                    .hasLowCardinalityKeyValue("outcome", "passed")
                    .hasLowCardinalityKeyValue("reason", "none");
        });
    }

    @Test
    void callsTheFilterDoesNotDecideAreObservedAsSkippedWithTheReason() {
        observed.run(context -> {
            lookups(context).user(ABSENT); // before the preload: the filter is loading
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "users")
                    .hasLowCardinalityKeyValue("outcome", "skipped")
                    .hasLowCardinalityKeyValue("reason", "not_ready");
            observations.clear();

            lookups(loaded(context)).order(ABSENT);
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "orders")
                    .hasLowCardinalityKeyValue("outcome", "skipped")
                    .hasLowCardinalityKeyValue("reason", "mode_off");
            observations.clear();

            lookups(context).user(null);
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("outcome", "skipped")
                    .hasLowCardinalityKeyValue("reason", "no_key");
        });
    }

    @Test
    void aShadowRejectionIsObservedAsSuchAndTheMethodRuns() {
        observed.run(context -> {
            assertThat(lookups(loaded(context)).sku(7L)).contains("sku 7");
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "skus")
                    .hasLowCardinalityKeyValue("outcome", "shadow_rejected");
        });
    }

    /** A check the backend fails: what on-backend-failure then did, and the failure when it is thrown. */
    @Test
    void aFailedCheckIsObservedWithWhatTheFailurePolicyDid() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
                .withUserConfiguration(UnreachableFilters.class)
                .withPropertyValues("bloom-guard.filters.strict.expected-size=100",
                        "bloom-guard.filters.strict.on-backend-failure=throw",
                        "bloom-guard.filters.careful.expected-size=100",
                        "bloom-guard.filters.careful.on-backend-failure=reject",
                        "bloom-guard.filters.lenient.expected-size=100",
                        "bloom-guard.filters.lenient.on-backend-failure=allow")
                .withBean(ObservationRegistry.class, () -> observations)
                .withBean(UnreachableLookups.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    UnreachableLookups lookups = context.getBean(UnreachableLookups.class);
                    assertThatExceptionOfType(BackendUnavailableException.class).isThrownBy(() -> lookups.strict(1L));
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "strict")
                            .hasLowCardinalityKeyValue("outcome", "failed")
                            .hasLowCardinalityKeyValue("reason", "backend_failure")
                            .hasError();
                    observations.clear();

                    assertThat(lookups.careful(1L)).as("answered empty").isEmpty();
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "careful")
                            .hasLowCardinalityKeyValue("outcome", "rejected")
                            .hasLowCardinalityKeyValue("reason", "backend_failure");
                    observations.clear();

                    assertThat(lookups.lenient(1L)).as("let through").contains("found");
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "lenient")
                            .hasLowCardinalityKeyValue("outcome", "skipped")
                            .hasLowCardinalityKeyValue("reason", "backend_failure");
                });
    }

    @Test
    void aCheckIsPartOfTheObservationTheCallerIsIn() {
        observed.run(context -> {
            Lookups lookups = lookups(loaded(context));
            Observation request = Observation.createNotStarted("http.server.requests", observations);
            request.observe(() -> lookups.user(ABSENT));
            assertThat(observations).hasObservationWithNameEqualTo("bloomguard.check").that()
                    .hasParentObservationEqualTo(request);
        });
    }

    @Test
    void aReactiveCallIsObservedWhenSubscribedToAsAChildOfItsSubscribersObservation() {
        observed.run(context -> {
            Lookups lookups = lookups(loaded(context));
            Mono<String> rejected = lookups.userReactively(ABSENT);
            assertThat(observations).as("nothing checked before the subscription").doesNotHaveAnyObservation();

            Observation request = Observation.start("http.server.requests", observations);
            assertThat(rejected.contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, request)).block()).isNull();
            request.stop();
            assertThat(observations).hasObservationWithNameEqualTo("bloomguard.check").that()
                    .hasLowCardinalityKeyValue("filter", "users")
                    .hasLowCardinalityKeyValue("outcome", "rejected")
                    .hasBeenStopped()
                    .hasParentObservationEqualTo(request);
            observations.clear();

            assertThat(lookups.usersReactively(2L).collectList().block()).containsExactly("user 2");
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("outcome", "passed");
        });
    }

    @Test
    void anApplicationsConventionNamesTheObservations() {
        observed.withBean(BloomGuardObservationConvention.class, () -> new DefaultBloomGuardObservationConvention() {
            @Override
            public String getName() {
                return "lookups.guard";
            }
        }).run(context -> {
            lookups(loaded(context)).user(ABSENT);
            assertThat(observations).hasSingleObservationThat().hasNameEqualTo("lookups.guard")
                    .hasLowCardinalityKeyValue("outcome", "rejected");
        });
    }

    /** What an application with Actuator gets: Spring Boot's own registry, whose meter handler times every check. */
    @Test
    void springBootsObservationRegistryTimesEveryCheckByFilterAndOutcome() {
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CheckObserver.class);
            Lookups lookups = lookups(loaded(context));
            lookups.user(ABSENT);
            lookups.user(888_888L);
            lookups.user(2L);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.check").tags("filter", "users", "outcome", "rejected", "reason", "none")
                    .timer().count()).isEqualTo(2);
            assertThat(meters.get("bloomguard.check").tags("filter", "users", "outcome", "passed", "reason", "none")
                    .timer().count()).isEqualTo(1);
        });
    }

    @Test
    void springBootsPropertyTurnsTheChecksObservationsOff() {
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class))
                .withPropertyValues("management.observations.enable.bloomguard.check=false").run(context -> {
                    assertThat(lookups(loaded(context)).user(ABSENT)).isEmpty();
                    assertThat(context.getBean(MeterRegistry.class).find("bloomguard.check").meters()).isEmpty();
                    assertThat(context.getBean(CheckObserver.class).start("users", null)).isNull();
                });
    }

    @Test
    void withoutARegistryNothingIsObserved() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CheckObserver.class);
            assertThat(lookups(loaded(context)).user(ABSENT)).isEmpty();
        });
    }

    /** Even beside a registry bean (which alone would let it in), Micrometer's absence keeps the observer out. */
    @Test
    void withoutMicrometerObservationNothingIsObserved() {
        observed.withClassLoader(new FilteredClassLoader(ObservationRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CheckObserver.class);
            assertThat(lookups(loaded(context)).user(ABSENT)).isEmpty();
            assertThat(observations).doesNotHaveAnyObservation();
        });
    }

    /** A registry with no handlers, as {@code NOOP}: the guard makes nothing for its checks. */
    @Test
    void aNoopRegistryMakesNothing() {
        runner.withBean(ObservationRegistry.class, () -> ObservationRegistry.NOOP).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(CheckObserver.class).start("users", null)).isNull();
            assertThat(lookups(loaded(context)).user(ABSENT)).isEmpty();
        });
    }

    private static AssertableApplicationContext loaded(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        context.getBean(FilterPreloader.class).preloadAll();
        return context;
    }

    private static Lookups lookups(AssertableApplicationContext context) {
        return context.getBean(Lookups.class);
    }

    /** The configured filters, ready, on a backend whose every check fails as an unreachable Redis does. */
    @Configuration(proxyBeanMethods = false)
    static class UnreachableFilters {

        @Bean
        static BloomFilterRegistry bloomFilterRegistry(BloomGuardSettings settings) {
            return new FixedBloomFilterRegistry(settings.filters().stream()
                    .map(spec -> new NamedBloomFilter(spec,
                            new UnreachableBackend(FilterSizing.of(spec.sizing().expectedSize(), spec.sizing().errorRate())),
                            FilterState.READY))
                    .toList());
        }
    }

    record UnreachableBackend(FilterSizing sizing) implements BloomFilter {

        @Override
        public boolean mightContain(Object key) {
            throw new BackendUnavailableException("Redis is unreachable");
        }

        @Override
        public boolean put(Object key) {
            throw new BackendUnavailableException("Redis is unreachable");
        }

        @Override
        public long approximateElementCount() {
            return 0;
        }

        @Override
        public double expectedFpp() {
            return 0;
        }

        @Override
        public long bitSize() {
            return sizing.bitSize();
        }

        @Override
        public int hashCount() {
            return sizing.hashCount();
        }

        @Override
        public int seed() {
            return 0;
        }
    }

    /** Lookups of rows that all exist, guarded by filters whose backend fails. */
    public static class UnreachableLookups {

        @BloomGuarded(filter = "strict")
        public Optional<String> strict(Long id) {
            return Optional.of("found");
        }

        @BloomGuarded(filter = "careful")
        public Optional<String> careful(Long id) {
            return Optional.of("found");
        }

        @BloomGuarded(filter = "lenient")
        public Optional<String> lenient(Long id) {
            return Optional.of("found");
        }
    }

    /** Guarded lookups: user ids below 100 exist, every sku exists, orders are never checked. */
    public static class Lookups {

        @BloomGuarded(filter = "users")
        public Optional<String> user(Long id) {
            return (id != null && id < 100) ? Optional.of("user " + id) : Optional.empty();
        }

        @BloomGuarded(filter = "users")
        public Mono<String> userReactively(Long id) {
            return Mono.justOrEmpty(user(id));
        }

        @BloomGuarded(filter = "users")
        public Flux<String> usersReactively(Long id) {
            return Flux.fromStream(user(id).stream());
        }

        @BloomGuarded(filter = "skus")
        public Optional<String> sku(Long id) {
            return Optional.of("sku " + id);
        }

        @BloomGuarded(filter = "orders")
        public Optional<String> order(Long id) {
            return Optional.empty();
        }
    }
}
