package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.actuate.BloomFiltersEndpoint.FilterDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.FilterHeadline;
import io.bloomguard.actuate.BloomFiltersEndpoint.MembershipDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension.FailureDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension.UnknownFilterDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class BloomGuardEndpointAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class,
                    BloomGuardEndpointAutoConfiguration.class, BloomGuardHealthContributorAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=bloomfilters",
                    "bloom-guard.filters.users.expected-size=1000", "bloom-guard.filters.skus.expected-size=500",
                    "bloom-guard.filters.skus.mode=shadow", "bloom-guard.filters.skus.error-rate=0.001")
            .withBean("userIds", BloomKeySource.class, () -> BloomKeySource.of("users",
                    () -> LongStream.rangeClosed(1, 400).boxed()))
            .withBean("skuIds", BloomKeySource.class, () -> BloomKeySource.of("skus", Stream::empty));

    @Test
    void listsEveryFilterWithItsHeadlineInConfigurationOrder() {
        runner.withUserConfiguration(FixedSeedFilters.class).run(context -> {
            preload(context);
            context.getBean(BloomFilterRegistry.class).get("users").counters().rejected(); // one call rejected
            Map<String, FilterHeadline> filters = context.getBean(BloomFiltersEndpoint.class).filters().filters();

            assertThat(filters).containsOnlyKeys("users", "skus");
            assertThat(filters.keySet()).containsExactly("users", "skus");
            FilterHeadline users = filters.get("users");
            assertThat(users.backend()).isEqualTo("local");
            assertThat(users.mode()).isEqualTo("enforce");
            assertThat(users.state()).isEqualTo("READY");
            assertThat(users.stateReason()).isNull();
            assertThat(java.time.Instant.parse(users.stateSince())).isNotNull();
            assertThat(users.expectedSize()).isEqualTo(1000);
            // 400 keys in 10,240 bits: over seeds the estimate spreads by σ = 3.1 keys, so ±20 is 6σ (the fixed seed's
            // is 402).
            assertThat(users.approximateElements()).isBetween(380L, 420L);
            assertThat(users.capacityRatio()).isEqualTo(users.approximateElements() / 1000.0);
            assertThat(users.configuredErrorRate()).isEqualTo(0.01);
            assertThat(users.expectedFalsePositiveRate()).isGreaterThan(0).isLessThan(0.01);
            assertThat(users.rejected()).isEqualTo(1);
            assertThat(filters.get("skus").mode()).isEqualTo("shadow");
            assertThat(filters.get("skus").configuredErrorRate()).isEqualTo(0.001);
        });
    }

    @Test
    void describesOneFilterWithItsSpecLayoutCountersAndLastPreloadButNoRedisSection() {
        runner.run(context -> {
            preload(context);
            FilterDescriptor users = context.getBean(BloomFiltersEndpoint.class).filter("users");

            assertThat(users).isNotNull();
            assertThat(users.state()).isEqualTo("READY");
            assertThat(users.spec().expectedSize()).isEqualTo(1000);
            assertThat(users.spec().onBackendFailure()).isEqualTo("allow");
            assertThat(users.spec().backend()).isEqualTo("local");
            assertThat(users.spec().type()).isEqualTo("bloom");
            assertThat(users.spec().growth()).isEqualTo("rebuild");
            assertThat(users.capacity()).isEqualTo(1000);
            assertThat(users.overCapacity()).isFalse();
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("users");
            assertThat(users.layout().bits()).isEqualTo(filter.bitSize()).isEqualTo(users.layout().blocks() * 512);
            assertThat(users.layout().bytes()).isEqualTo(filter.bitSize() / 8);
            assertThat(users.layout().hashes()).isEqualTo(filter.hashCount());
            assertThat(users.layout().shards()).isEqualTo(1);
            assertThat(users.layout().layers()).isEqualTo(1);
            assertThat(users.counters().skippedByReason()).containsOnlyKeys("not_ready", "mode_off", "no_key",
                    "backend_failure", "write_pending");
            assertThat(users.lastPreload()).isNotNull();
            assertThat(users.lastPreload().keys()).isEqualTo(400);
            assertThat(users.lastPreload().failure()).isNull();
            assertThat(users.lastRebuild()).isNull();
            assertThat(users.redis()).isNull();
        });
    }

    @Test
    void anUnknownFilterIsA404ListingTheConfiguredOnes() {
        runner.run(context -> {
            assertThat(context.getBean(BloomFiltersEndpoint.class).filter("userz")).isNull();
            WebEndpointResponse<Object> response = context.getBean(BloomFiltersEndpointWebExtension.class)
                    .filter("userz");
            assertThat(response.getStatus()).isEqualTo(404);
            assertThat(response.getBody()).isInstanceOfSatisfying(UnknownFilterDescriptor.class, body -> {
                assertThat(body.filters()).containsExactly("users", "skus");
                assertThat(body.message()).contains("'userz'").contains("users, skus");
            });
            assertThat(context.getBean(BloomFiltersEndpointWebExtension.class).act("userz", "test", "1", null, SecurityContext.NONE).getStatus())
                    .isEqualTo(404);
        });
    }

    @Test
    void testingAKeyAnswersWhetherTheFilterMightHoldIt() {
        runner.run(context -> {
            preload(context);
            BloomFiltersEndpointWebExtension web = context.getBean(BloomFiltersEndpointWebExtension.class);

            assertThat(web.act("users", "test", "42", null, SecurityContext.NONE).getBody()).isEqualTo(new MembershipDescriptor(true));
            assertThat(web.act("users", "test", "100000042", null, SecurityContext.NONE).getBody()).isEqualTo(new MembershipDescriptor(false));
        });
    }

    @Test
    void anUnknownActionOrATestWithoutKeyIsA400SayingWhatIsAccepted() {
        runner.run(context -> {
            BloomFiltersEndpointWebExtension web = context.getBean(BloomFiltersEndpointWebExtension.class);

            WebEndpointResponse<Object> unknown = web.act("users", "clear", null, null, SecurityContext.NONE);
            assertThat(unknown.getStatus()).isEqualTo(400);
            assertThat(((FailureDescriptor) unknown.getBody()).message())
                    .isEqualTo("Unknown action 'clear'; actions: rebuild, confirm-rebuild, test, mode");
            WebEndpointResponse<Object> noKey = web.act("users", "test", null, null, SecurityContext.NONE);
            assertThat(noKey.getStatus()).isEqualTo(400);
            assertThat(((FailureDescriptor) noKey.getBody()).message()).contains("needs a key");
        });
    }

    @Test
    void rebuildingAFilterWithoutAKeySourceIsA409SayingWhy() {
        runner.run(context -> {
            WebEndpointResponse<Object> response = context.getBean(BloomFiltersEndpointWebExtension.class)
                    .act("users", "rebuild", null, null, SecurityContext.NONE);
            assertThat(response.getStatus()).isEqualTo(409);
            assertThat(((FailureDescriptor) response.getBody()).message()).contains("'users'")
                    .contains("no key source");
        });
    }

    @Test
    void rebuildingADisabledFilterIsA409SayingWhy() {
        runner.withPropertyValues("bloom-guard.enabled=false").run(context -> {
            WebEndpointResponse<Object> response = context.getBean(BloomFiltersEndpointWebExtension.class)
                    .act("users", "rebuild", null, null, SecurityContext.NONE);
            assertThat(response.getStatus()).isEqualTo(409);
            assertThat(((FailureDescriptor) response.getBody()).message()).contains("disabled");
        });
    }

    @Test
    void theEndpointIsNotThereUnlessExposed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class,
                        BloomGuardEndpointAutoConfiguration.class))
                .withPropertyValues("bloom-guard.filters.users.expected-size=1000")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BloomFiltersEndpoint.class)
                        .doesNotHaveBean(BloomFiltersEndpointWebExtension.class));
    }

    @Test
    void withoutTheActuatorThereIsNoEndpointAndTheFiltersStillWork() {
        runner.withClassLoader(new FilteredClassLoader(ConditionalOnAvailableEndpoint.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(BloomFiltersEndpoint.class);
            assertThat(context).getBean(BloomFilterRegistry.class).isNotNull();
        });
    }

    @Test
    void withoutTheHealthModuleThereIsNoHealthContributor() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context -> assertThat(context)
                .hasNotFailed().doesNotHaveBean("bloomFiltersHealthContributor").hasSingleBean(BloomFiltersEndpoint.class));
    }

    @Test
    void theHealthContributorCanBeSwitchedOff() {
        runner.withPropertyValues("management.health.bloomfilters.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("bloomFiltersHealthContributor"));
    }

    @Test
    void aReadyFilterIsUpWithItsFillInTheDetails() {
        runner.run(context -> {
            preload(context);
            Health users = health(context, "users");
            assertThat(users.getStatus()).isEqualTo(Status.UP);
            assertThat(users.getDetails()).containsEntry("state", "READY").containsEntry("expectedSize", 1000L)
                    .containsEntry("backend", "local").doesNotContainKey("reasons");
        });
    }

    @ParameterizedTest
    @EnumSource(value = FilterState.class, names = { "READY", "DISABLED" }, mode = EnumSource.Mode.EXCLUDE)
    void aFilterThatLetsCallsThroughIsDegradedWithTheStateInTheReasons(FilterState state) {
        runner.run(context -> {
            preload(context);
            context.getBean(BloomFilterRegistry.class).get("users").transitionTo(state);
            Health users = health(context, "users");
            assertThat(users.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(users.getDetails()).containsEntry("state", state.name());
            assertThat(reasons(users)).singleElement().asString().startsWith(state.name() + ": ")
                    .contains("calls pass through");
            assertThat(health(context, "skus").getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void aFilterOverCapacityIsDegradedSayingWhatToDo() {
        runner.withPropertyValues("bloom-guard.filters.users.growth=none").run(context -> {
            preload(context);
            NamedBloomFilter users = context.getBean(BloomFilterRegistry.class).get("users");
            users.putAll(LongStream.rangeClosed(10_001, 11_000).boxed().toList());
            Health health = health(context, "users");
            assertThat(health.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(health.getDetails()).containsEntry("state", "READY").containsEntry("capacity", 1000L);
            assertThat(reasons(health)).singleElement().asString().startsWith("over capacity: about ")
                    .contains("sized for 1000").contains("raise expected-size").contains("growth: rebuild");
            FilterHeadline headline = context.getBean(BloomFiltersEndpoint.class).filters().filters().get("users");
            assertThat(headline.overCapacity()).isTrue();
            assertThat(headline.capacityRatio()).isGreaterThan(1.0);
        });
    }

    /** With growth: rebuild (the default), a filter past its capacity rebuilds itself larger and is UP again. */
    @Test
    void aFilterThatOutgrowsItsSizeRebuildsItselfLargerAndIsHealthyAgain() {
        runner.withBean("moreUserIds", BloomKeySource.class, () -> BloomKeySource.of("users",
                () -> LongStream.rangeClosed(401, 1_400).boxed())).run(context -> {
            preload(context); // 1,400 keys for 1,000: it starts growing once loaded
            NamedBloomFilter users = context.getBean(BloomFilterRegistry.class).get("users");

            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> health(context, "users").getStatus().equals(Status.UP));
            assertThat(users.capacity()).isGreaterThanOrEqualTo(2_000);
            assertThat(users.history().lastRebuild()).isNotNull();
            assertThat(LongStream.rangeClosed(1, 1_400)).allMatch(users::mightContain);
            assertThat(context.getBean(BloomFiltersEndpoint.class).filters().filters().get("users").overCapacity())
                    .isFalse();
        });
    }

    /** A counting filter's layout: a 4-bit counter at each position, so half a byte per position. */
    @Test
    void aCountingFilterTakesFourBitsPerPosition() {
        runner.withUserConfiguration(FixedSeedFilters.class)
                .withPropertyValues("bloom-guard.filters.users.type=counting")
                .run(context -> {
                    preload(context);
                    FilterDescriptor users = context.getBean(BloomFiltersEndpoint.class).filter("users");
                    assertThat(users.spec().type()).isEqualTo("counting");
                    assertThat(users.layout().bytes()).isEqualTo(users.layout().bits() / 2);
                    assertThat(users.approximateElements()).isBetween(380L, 420L); // as a plain one's: 6σ
                });
    }

    @Test
    void aDisabledFilterIsUpAndSaysSo() {
        runner.withPropertyValues("bloom-guard.enabled=false").run(context -> {
            Health users = health(context, "users");
            assertThat(users.getStatus()).isEqualTo(Status.UP);
            assertThat(users.getDetails()).containsEntry("state", "DISABLED");
        });
    }

    @Test
    void everyBeanCanBeReplacedByTheUser() {
        List<Method> beanMethods = Stream.of(BloomGuardEndpointAutoConfiguration.class,
                        BloomGuardHealthContributorAutoConfiguration.class)
                .flatMap(configuration -> Stream.of(configuration.getDeclaredMethods()))
                .filter(method -> method.isAnnotationPresent(Bean.class)).toList();
        assertThat(beanMethods).hasSize(3).allSatisfy(method -> assertThat(
                method.isAnnotationPresent(ConditionalOnMissingBean.class)).as("%s is @ConditionalOnMissingBean", method)
                .isTrue());
    }

    private static void preload(AssertableApplicationContext context) {
        context.getBean(FilterPreloader.class).preloadAll();
    }

    private static Health health(AssertableApplicationContext context, String filter) {
        HealthContributor contributor = context.getBean("bloomFiltersHealthContributor", CompositeHealthContributor.class)
                .getContributor(filter);
        assertThat(contributor).as("health contributor of %s", filter).isInstanceOf(HealthIndicator.class);
        return ((HealthIndicator) contributor).health();
    }

    @SuppressWarnings("unchecked")
    private static List<String> reasons(Health health) {
        return (List<String>) health.getDetails().get("reasons");
    }
}
