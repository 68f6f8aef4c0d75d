package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.core.BackendUnavailableException;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.guard.CheckObserver;
import io.bloomguard.observation.BloomGuardObservationContext;
import io.bloomguard.observation.BloomGuardObservationConvention;
import io.bloomguard.observation.DefaultBloomGuardObservationConvention;
import io.bloomguard.observation.ObservationCheckObserver;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
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

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * With an {@code ObservationRegistry} and {@code bloom-guard.observations.checks=on}, every call the guard checks is a
 * {@code bloomguard.check} observation tagged with its filter and what the guard did, so that a trace shows "rejected
 * by filter users"; with {@code under-parent}, only the calls made inside another observation. By default, without a
 * registry, or without Micrometer, nothing is observed and the guard works as before.
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

    private final ApplicationContextRunner withRegistry = runner.withBean(ObservationRegistry.class, () -> observations);

    private final ApplicationContextRunner observed = withRegistry.withPropertyValues("bloom-guard.observations.checks=on");

    /** What an application with Actuator gets: Spring Boot's registry, whose meter handler times observations. */
    private final ApplicationContextRunner actuator = runner.withConfiguration(AutoConfigurations.of(
            ObservationAutoConfiguration.class, MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, BloomGuardMetricsAutoConfiguration.class));

    @Test
    void aRejectedCallIsAnObservationOfItsFilterAndOutcome() {
        observed.run(context -> {
            lookups(loaded(context)).user(ABSENT);
            assertThat(observations).hasSingleObservationThat()
                    .hasNameEqualTo("bloomguard.check")
                    .hasContextualNameEqualTo("bloom-guard check users")
                    .hasLowCardinalityKeyValue("filter", "users")
                    .hasHighCardinalityKeyValue("outcome", "rejected")
                    .hasHighCardinalityKeyValue("reason", "none")
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
                    .hasHighCardinalityKeyValue("outcome", "passed")
                    .hasHighCardinalityKeyValue("reason", "none");
        });
    }

    @Test
    void callsTheFilterDoesNotDecideAreObservedAsSkippedWithTheReason() {
        observed.run(context -> {
            lookups(context).user(ABSENT); // before the preload: the filter is loading
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "users")
                    .hasHighCardinalityKeyValue("outcome", "skipped")
                    .hasHighCardinalityKeyValue("reason", "not_ready");
            observations.clear();

            lookups(loaded(context)).order(ABSENT);
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "orders")
                    .hasHighCardinalityKeyValue("outcome", "skipped")
                    .hasHighCardinalityKeyValue("reason", "mode_off");
            observations.clear();

            lookups(context).user(null);
            assertThat(observations).hasSingleObservationThat().hasHighCardinalityKeyValue("outcome", "skipped")
                    .hasHighCardinalityKeyValue("reason", "no_key");
        });
    }

    @Test
    void aShadowRejectionIsObservedAsSuchAndTheMethodRuns() {
        observed.run(context -> {
            assertThat(lookups(loaded(context)).sku(7L)).contains("sku 7");
            assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "skus")
                    .hasHighCardinalityKeyValue("outcome", "shadow_rejected");
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
                        "bloom-guard.filters.lenient.on-backend-failure=allow", "bloom-guard.observations.checks=on")
                .withBean(ObservationRegistry.class, () -> observations)
                .withBean(UnreachableLookups.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    UnreachableLookups lookups = context.getBean(UnreachableLookups.class);
                    assertThatExceptionOfType(BackendUnavailableException.class).isThrownBy(() -> lookups.strict(1L));
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "strict")
                            .hasHighCardinalityKeyValue("outcome", "failed")
                            .hasHighCardinalityKeyValue("reason", "backend_failure")
                            .hasError();
                    observations.clear();

                    assertThat(lookups.careful(1L)).as("answered empty").isEmpty();
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "careful")
                            .hasHighCardinalityKeyValue("outcome", "rejected")
                            .hasHighCardinalityKeyValue("reason", "backend_failure");
                    observations.clear();

                    assertThat(lookups.lenient(1L)).as("let through").contains("found");
                    assertThat(observations).hasSingleObservationThat().hasLowCardinalityKeyValue("filter", "lenient")
                            .hasHighCardinalityKeyValue("outcome", "skipped")
                            .hasHighCardinalityKeyValue("reason", "backend_failure");
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
                    .hasHighCardinalityKeyValue("outcome", "rejected")
                    .hasBeenStopped()
                    .hasParentObservationEqualTo(request);
            observations.clear();

            assertThat(lookups.usersReactively(2L).collectList().block()).containsExactly("user 2");
            assertThat(observations).hasSingleObservationThat().hasHighCardinalityKeyValue("outcome", "passed");
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
                    .hasHighCardinalityKeyValue("outcome", "rejected");
        });
    }

    /**
     * Actuator's defaults: the registry exists, and a flood of rejected calls must not pay for an observation each;
     * the counters still count every check.
     */
    @Test
    void withActuatorAndTheDefaultsNoCheckIsObservedAndTheCountersStillCount() {
        actuator.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CheckObserver.class);
            Lookups lookups = lookups(loaded(context));
            assertThat(lookups.user(ABSENT)).isEmpty();
            assertThat(lookups.user(2L)).contains("user 2");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.find("bloomguard.check").meters()).isEmpty();
            assertThat(meters.find("bloomguard.check.active").meters()).isEmpty();
            assertThat(meters.get("bloomguard.checks").tags("filter", "users", "outcome", "rejected").functionCounter().count())
                    .isEqualTo(1);
            assertThat(meters.get("bloomguard.checks").tags("filter", "users", "outcome", "passed").functionCounter().count())
                    .isEqualTo(1);
        });
        withRegistry.run(context -> {
            assertThat(lookups(loaded(context)).user(ABSENT)).isEmpty();
            assertThat(observations).doesNotHaveAnyObservation();
        });
    }

    /**
     * Turned on, Spring Boot's meter handler times the checks by filter, and its long task timer, made at each
     * check's start, is tagged with the filter alone: no outcome that is not known yet, and no second count of the
     * checks by outcome, which {@code bloomguard.checks} keeps.
     */
    @Test
    void springBootsObservationRegistryTimesEveryCheckByFilterWithNoOutcomeUnknown() {
        actuator.withPropertyValues("bloom-guard.observations.checks=on").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CheckObserver.class);
            Lookups lookups = lookups(loaded(context));
            lookups.user(ABSENT);
            lookups.user(888_888L);
            lookups.user(2L);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.check").timers()).singleElement().satisfies(timer -> {
                assertThat(timer.getId().getTags()).containsExactlyInAnyOrder(Tag.of("filter", "users"),
                        Tag.of("error", "none"));
                assertThat(timer.count()).isEqualTo(3);
            });
            assertThat(meters.get("bloomguard.check.active").longTaskTimers()).singleElement()
                    .satisfies(active -> assertThat(active.getId().getTags()).containsExactly(Tag.of("filter", "users")));
            assertThat(meters.getMeters()).flatMap(meter -> meter.getId().getTags()).map(Tag::getValue)
                    .doesNotContain("unknown");
            assertThat(meters.get("bloomguard.checks").tags("filter", "users", "outcome", "rejected").functionCounter().count())
                    .isEqualTo(2);
        });
    }

    /** The recipe in docs/metrics.md: a convention puts the outcome on the timer, and still not on the long task timer. */
    @Test
    void aConventionCanPutTheOutcomeOnTheTimer() {
        actuator.withPropertyValues("bloom-guard.observations.checks=on")
                .withBean(BloomGuardObservationConvention.class, () -> new DefaultBloomGuardObservationConvention() {
                    @Override
                    public KeyValues getLowCardinalityKeyValues(BloomGuardObservationContext context) {
                        return super.getLowCardinalityKeyValues(context).and(super.getHighCardinalityKeyValues(context));
                    }
                }).run(context -> {
                    lookups(loaded(context)).user(ABSENT);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("bloomguard.check").tags("filter", "users", "outcome", "rejected", "reason", "none")
                            .timer().count()).isEqualTo(1);
                    assertThat(meters.get("bloomguard.check.active").longTaskTimers()).singleElement()
                            .satisfies(active -> assertThat(active.getId().getTags()).containsExactly(Tag.of("filter", "users")));
                });
    }

    /** Each observation is told its outcome when it stops, never before, and never "unknown". */
    @Test
    void eachCheckIsOneObservationWhoseOutcomeIsSetWhenItStops() {
        List<KeyValues> atStart = new CopyOnWriteArrayList<>();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                atStart.add(context.getAllKeyValues());
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof BloomGuardObservationContext;
            }
        });
        observed.run(context -> {
            Lookups lookups = lookups(loaded(context));
            lookups.user(ABSENT);
            lookups.user(2L);
            lookups.sku(7L);
            assertThat(observations).hasNumberOfObservationsWithNameEqualTo("bloomguard.check", 3);
            assertThat(observations).hasHandledContextsThatSatisfy(contexts -> assertThat(contexts)
                    .map(observation -> observation.getHighCardinalityKeyValue("outcome").getValue())
                    .containsExactly("rejected", "passed", "shadow_rejected"));
            assertThat(atStart).hasSize(3).allSatisfy(keyValues -> assertThat(keyValues)
                    .extracting(KeyValue::getKey).containsExactly("filter"));
        });
    }

    /** A reactive subscriber that cancels before the guard has decided: the observation says so. */
    @Test
    void aCheckCancelledBeforeTheDecisionIsObservedAsCancelled() {
        CheckObserver.Check check = new ObservationCheckObserver(observations, null).start("users", null);
        assertThat(check).isNotNull();
        check.cancelled();
        assertThat(observations).hasSingleObservationThat().hasBeenStopped()
                .hasHighCardinalityKeyValue("outcome", "cancelled")
                .hasHighCardinalityKeyValue("reason", "none");
    }

    /** {@code under-parent}: a check is a span of a trace under way, and a call outside any costs nothing more. */
    @Test
    void underParentObservesOnlyTheChecksMadeInsideAnotherObservation() {
        withRegistry.withPropertyValues("bloom-guard.observations.checks=under-parent").run(context -> {
            Lookups lookups = lookups(loaded(context));
            assertThat(lookups.user(ABSENT)).isEmpty();
            assertThat(lookups.userReactively(ABSENT).block()).isNull();
            assertThat(observations).doesNotHaveAnyObservation();

            Observation request = Observation.createNotStarted("http.server.requests", observations);
            request.observe(() -> lookups.user(ABSENT));
            assertThat(observations).hasNumberOfObservationsWithNameEqualTo("bloomguard.check", 1)
                    .hasObservationWithNameEqualTo("bloomguard.check").that()
                    .hasHighCardinalityKeyValue("outcome", "rejected")
                    .hasParentObservationEqualTo(request);
            observations.clear();

            Observation reactiveRequest = Observation.start("http.server.requests", observations);
            assertThat(lookups.userReactively(ABSENT)
                    .contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, reactiveRequest)).block()).isNull();
            reactiveRequest.stop();
            assertThat(observations).hasNumberOfObservationsWithNameEqualTo("bloomguard.check", 1)
                    .hasObservationWithNameEqualTo("bloomguard.check").that()
                    .hasParentObservationEqualTo(reactiveRequest);
        });
    }

    /** Spring Boot's relaxed spellings, and a YAML {@code off}, which YAML reads as a boolean. */
    @Test
    void theSwitchTakesTheUsualSpellings() {
        for (String on : List.of("on", "ON", "true", "under-parent", "UNDER_PARENT", "underParent")) {
            withRegistry.withPropertyValues("bloom-guard.observations.checks=" + on)
                    .run(context -> assertThat(context).as(on).hasNotFailed().hasSingleBean(CheckObserver.class));
        }
        for (String off : List.of("off", "OFF", "false")) {
            withRegistry.withPropertyValues("bloom-guard.observations.checks=" + off)
                    .run(context -> assertThat(context).as(off).hasNotFailed().doesNotHaveBean(CheckObserver.class));
        }
    }

    @Test
    void springBootsPropertyTurnsTheChecksObservationsOff() {
        actuator.withPropertyValues("bloom-guard.observations.checks=on",
                        "management.observations.enable.bloomguard.check=false").run(context -> {
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
        runner.withBean(ObservationRegistry.class, () -> ObservationRegistry.NOOP)
                .withPropertyValues("bloom-guard.observations.checks=on").run(context -> {
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
