package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.guard.BloomGuardAdvisor;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.UnknownFilterException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class BloomGuardAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class));

    @Test
    void eachFilterIsABeanNamedAfterItAndInTheRegistry() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=5000", "bloom-guard.filters.user-ids.mode=shadow")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    NamedBloomFilter users = filter(context, "users");
                    assertThat(BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), BloomFilter.class,
                            "user-ids")).isInstanceOf(NamedBloomFilter.class);
                    BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
                    assertThat(registry.get("users")).isSameAs(users);
                    assertThat(registry.all()).extracting(NamedBloomFilter::name).containsExactly("users", "user-ids");
                    assertThat(registry.find("nope")).isEmpty();
                    assertThatExceptionOfType(UnknownFilterException.class).isThrownBy(() -> registry.get("nope"))
                            .withMessage("No Bloom filter named 'nope'; configured: users, user-ids");
                    assertThat(users.state()).isEqualTo(FilterState.LOADING);
                    assertThat(context).hasSingleBean(BloomGuardAdvisor.class).hasSingleBean(FilterPreloader.class);
                });
    }

    /**
     * The properties are bound once, before any bean exists, and each filter's spec resolved once: the registry, the
     * filter beans and whoever injects the properties (as from any properties bean) share them.
     */
    @Test
    void propertiesAreBoundOnceAndShared() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=10", "bloom-guard.redis.key-prefix=app:")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BloomGuardSettings settings = context.getBean(BloomGuardSettings.class);
                    BloomGuardProperties properties = context.getBean(BloomGuardProperties.class);
                    assertThat(settings.properties()).isSameAs(properties);
                    assertThat(properties.getRedis().getKeyPrefix()).isEqualTo("app:");
                    assertThat(filter(context, "users").spec()).isSameAs(settings.filters().get(0));
                });
    }

    /**
     * A filter with a rebuild schedule is rebuilt on it from its key source: keys deleted from the source drop out
     * (a schedule of every second stands in for a nightly one).
     */
    @Test
    void aFilterIsRebuiltOnItsSchedule() {
        java.util.Set<Long> rows = java.util.concurrent.ConcurrentHashMap.newKeySet();
        rows.addAll(List.of(1L, 2L, 3L));
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=1000",
                        "bloom-guard.filters.users.rebuild.cron=* * * * * *", "bloom-guard.filters.users.rebuild.zone=UTC")
                .withBean(BloomKeySource.class, () -> BloomKeySource.of("users", () -> List.copyOf(rows).stream()))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(FilterPreloader.class).preloadAll();
                    NamedBloomFilter users = filter(context, "users");
                    assertThat(users.mightContain(2L)).isTrue();
                    rows.remove(2L); // deleted

                    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(15))
                            .until(() -> users.history().lastRebuild() != null && !users.mightContain(2L));
                    assertThat(users.mightContain(1L)).isTrue();
                    assertThat(users.mightContain(3L)).isTrue();
                    assertThat(users.history().lastRebuild().keys()).isEqualTo(2);
                });
    }

    @Test
    void anInvalidRebuildScheduleStopsStartupNamingTheProperty() {
        runner.withPropertyValues("bloom-guard.filters.users.rebuild.cron=every night").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("bloom-guard.filters.users.rebuild.cron")
                        .hasStackTraceContaining("six fields"));
        runner.withPropertyValues("bloom-guard.defaults.rebuild.cron=0 0 4 * * *",
                "bloom-guard.defaults.rebuild.zone=Mars/Olympus", "bloom-guard.filters.users.expected-size=10").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("bloom-guard.defaults.rebuild.zone")
                        .hasStackTraceContaining("time zone"));
    }

    /** Users name their own beans after the filter (a key source called "users"): no clash. */
    @Test
    void filterBeansAreInjectedByQualifierAndLeaveTheFilterNameFree() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=10", "bloom-guard.filters.skus.expected-size=10")
                .withBean("users", BloomKeySource.class, () -> BloomKeySource.of("users", Stream::of))
                .withBean(UsesFilters.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    UsesFilters bean = context.getBean(UsesFilters.class);
                    assertThat(bean.users.name()).isEqualTo("users");
                    assertThat(bean.skus.name()).isEqualTo("skus");
                    assertThat(context.getBean("usersBloomFilter")).isSameAs(bean.users);
                });
    }

    static class UsesFilters {

        final NamedBloomFilter users;

        final NamedBloomFilter skus;

        UsesFilters(@Qualifier("users") NamedBloomFilter users, @Qualifier("skus") NamedBloomFilter skus) {
            this.users = users;
            this.skus = skus;
        }
    }

    @Test
    void filtersInheritDefaultsAndOverrideThem() {
        runner.withPropertyValues("bloom-guard.defaults.expected-size=2000", "bloom-guard.defaults.error-rate=0.05",
                "bloom-guard.defaults.mode=shadow", "bloom-guard.filters.a.error-rate=0.001",
                "bloom-guard.filters.b.expected-size=300", "bloom-guard.filters.b.mode=enforce",
                "bloom-guard.filters.c.backend=local")
                .run(context -> {
                    BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
                    assertThat(registry.get("a").spec().sizing().expectedSize()).isEqualTo(2000);
                    assertThat(registry.get("a").spec().sizing().errorRate()).isEqualTo(0.001);
                    assertThat(registry.get("a").spec().guard().mode()).isEqualTo(GuardMode.SHADOW);
                    assertThat(registry.get("b").spec().sizing().expectedSize()).isEqualTo(300);
                    assertThat(registry.get("b").spec().sizing().errorRate()).isEqualTo(0.05);
                    assertThat(registry.get("b").spec().guard().mode()).isEqualTo(GuardMode.ENFORCE);
                    assertThat(registry.get("c").sizing().expectedSize()).isEqualTo(2000);
                });
    }

    @Test
    void errorRateOutsideZeroToOneFailsStartup() {
        assertInvalid("bloom-guard.filters.users.error-rate=1.5", "bloom-guard.filters.users.error-rate", "1.5",
                "greater than 0 and less than 1");
        assertInvalid("bloom-guard.defaults.error-rate=0", "bloom-guard.defaults.error-rate", "0.0",
                "greater than 0 and less than 1");
    }

    @Test
    void expectedSizeBelowOneFailsStartup() {
        assertInvalid("bloom-guard.filters.users.expected-size=0", "bloom-guard.filters.users.expected-size", "0",
                "at least 1");
    }

    @Test
    void aFilterTooLargeForTheHeapFailsStartup() {
        // About 6 GiB, against the tests' 2 GiB heap.
        assertInvalid("bloom-guard.filters.users.expected-size=5000000000", "bloom-guard.filters.users.expected-size",
                "5000000000", "more than the heap");
    }

    @Test
    void localFiltersThatFitTheHeapEachButNotTogetherFailStartup() {
        // Each about 40% of the heap, so each passes the check of one filter; three would run out of memory while
        // they are allocated. (Not started for real: the test JVM shares its heap with cached contexts.)
        long heap = Runtime.getRuntime().maxMemory();
        long perMillion = FilterSizing.of(1_000_000, 0.01).byteSize();
        long expectedSize = (long) (0.4 * heap / perMillion * 1_000_000);
        runner.withPropertyValues("bloom-guard.filters.a.expected-size=" + expectedSize,
                "bloom-guard.filters.b.expected-size=" + expectedSize, "bloom-guard.filters.c.expected-size=" + expectedSize)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis).as("failure analysis").isNotNull();
                    long each = FilterSizing.of(expectedSize, 0.01).byteSize() >> 20;
                    assertThat(analysis.getDescription()).contains("for property bloom-guard.filters")
                            .contains("the local filters a (" + each + " MiB), b (" + each + " MiB), c (" + each
                                    + " MiB), need " + 3 * each + " MiB together, more than the heap ("
                                    + (heap >> 20) + " MiB)")
                            .contains("move one to backend: redis");
                });
    }

    @Test
    void aLocalFilterLargerThanAJavaArrayFailsStartup() {
        assertInvalid("bloom-guard.filters.users.expected-size=20000000000", "bloom-guard.filters.users.expected-size",
                "20000000000", "a local filter holds at most 16 GiB");
    }

    @Test
    void badFilterNameFailsStartup() {
        assertInvalid("bloom-guard.filters.User_Ids.expected-size=10", "bloom-guard.filters", "User_Ids",
                "lowercase letters, digits and '-'");
    }

    @Test
    void aRedisFilterWithoutSpringDataRedisFailsStartup() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
                .withPropertyValues("bloom-guard.filters.users.backend=redis").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("bloom-guard.filters.users.backend")
                            .contains("spring-boot-starter-data-redis");
                });
    }

    @Test
    void aRedisFilterWithoutAConnectionFactoryFailsStartup() {
        assertInvalid("bloom-guard.filters.users.backend=redis", "bloom-guard.filters.users.backend", "redis",
                "needs a RedisConnectionFactory bean");
    }

    @Test
    void invalidRedisSettingsFailStartup() {
        assertInvalid("bloom-guard.redis.check-timeout=0ms", "bloom-guard.redis.check-timeout", "PT0S",
                "a positive duration");
        assertInvalid("bloom-guard.redis.key-prefix={bg}:", "bloom-guard.redis.key-prefix", "{bg}:",
                "without '{' or '}'");
        assertInvalid("bloom-guard.filters.users.redis.shards=0", "bloom-guard.filters.users.redis.shards", "0",
                "a whole number from 1");
        assertInvalid("bloom-guard.filters.users.redis.shards=16385", "bloom-guard.filters.users.redis.shards", "16385",
                "a whole number from 1 to 16384");
    }

    @Test
    void redisSettingsAreBound() {
        runner.withPropertyValues("bloom-guard.redis.key-prefix=app:", "bloom-guard.redis.check-timeout=20ms",
                "bloom-guard.redis.lock-ttl=1m").run(context -> {
                    assertThat(context).hasNotFailed();
                    io.bloomguard.redis.RedisBackendSettings settings = context.getBean(
                            io.bloomguard.redis.RedisFilterBackend.class).settings();
                    assertThat(settings.keyPrefix()).isEqualTo("app:");
                    assertThat(settings.checkTimeout()).isEqualTo(java.time.Duration.ofMillis(20));
                    assertThat(settings.lockTtl()).isEqualTo(java.time.Duration.ofMinutes(1));
                    assertThat(settings.commandTimeout()).isEqualTo(java.time.Duration.ofSeconds(2));
                });
    }

    @Test
    void preloadSqlWithoutADataSourceFailsStartup() {
        runner.withPropertyValues("bloom-guard.filters.users.preload.sql=SELECT id FROM users").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("bloom-guard.filters.users.preload.sql")
                    .contains("DataSource");
        });
    }

    @Test
    void aKeySourceForAnUnknownFilterFailsStartupWithAReport() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=10", "bloom-guard.filters.skus.expected-size=10")
                .withBean("adminIds", BloomKeySource.class, () -> BloomKeySource.of("userz", Stream::of))
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis).as("failure analysis").isNotNull();
                    assertThat(analysis.getDescription()).isEqualTo("Key source bean 'adminIds' is for filter"
                            + " 'userz', which is not configured; configured: users, skus");
                    assertThat(analysis.getAction()).contains("filter()").contains("bloom-guard.filters.userz");
                });
        runner.withBean(BloomKeySource.class, () -> BloomKeySource.of("users", Stream::of)).run(context -> {
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis").isNotNull();
            assertThat(analysis.getDescription()).endsWith("which is not configured; configured: none");
        });
    }

    @Test
    void disabledMeansNoGuardNoPreloadAndFiltersThatAnswerMaybe() {
        runner.withPropertyValues("bloom-guard.enabled=false", "bloom-guard.filters.users.expected-size=10")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(BloomGuardAdvisor.class)
                            .doesNotHaveBean(FilterPreloader.class);
                    NamedBloomFilter users = filter(context, "users");
                    assertThat(users.state()).isEqualTo(FilterState.DISABLED);
                    assertThat(users.mightContain(12345L)).isTrue();
                    users.transitionTo(FilterState.READY);
                    assertThat(users.state()).isEqualTo(FilterState.DISABLED);
                });
    }

    /**
     * The switch means what the filters' own configuration reads it as: {@code on}, {@code yes} and {@code 1} switch
     * everything on as {@code true} does (guard, preload, filters that fill and reject), {@code off}, {@code no} and
     * {@code 0} switch everything off as {@code false} does.
     */
    @Test
    void theSwitchMeansTheSameInEveryBooleanSpelling() {
        for (String on : List.of("on", "yes", "1", "TRUE")) {
            runner.withPropertyValues("bloom-guard.enabled=" + on, "bloom-guard.filters.users.expected-size=100")
                    .withBean(BloomKeySource.class, () -> BloomKeySource.of("users", () -> Stream.of(1L, 2L, 3L)))
                    .withBean(UserLookup.class)
                    .run(context -> {
                        assertThat(context).as(on).hasNotFailed().hasSingleBean(BloomGuardAdvisor.class)
                                .hasSingleBean(FilterPreloader.class);
                        context.getBean(FilterPreloader.class).preloadAll();
                        assertThat(filter(context, "users").state()).as(on).isEqualTo(FilterState.READY);
                        UserLookup lookup = context.getBean(UserLookup.class);
                        assertThat(lookup.find(2L)).as(on).contains("user 2");
                        assertThat(lookup.find(999_999L)).as(on).isEmpty();
                        assertThat(lookup.calls()).as("%s: the absent key was rejected without a call", on).isEqualTo(1);
                    });
        }
        for (String off : List.of("off", "no", "0", "FALSE")) {
            runner.withPropertyValues("bloom-guard.enabled=" + off, "bloom-guard.filters.users.expected-size=100")
                    .withBean(UserLookup.class)
                    .run(context -> {
                        assertThat(context).as(off).hasNotFailed().doesNotHaveBean(BloomGuardAdvisor.class)
                                .doesNotHaveBean(FilterPreloader.class);
                        assertThat(filter(context, "users").state()).as(off).isEqualTo(FilterState.DISABLED);
                        UserLookup lookup = context.getBean(UserLookup.class);
                        assertThat(lookup.find(999_999L)).as(off).isEmpty();
                        assertThat(lookup.calls()).as("%s: the method ran", off).isEqualTo(1);
                    });
        }
    }

    /** As in system properties ({@code -D}) and environment variables, which reach the switch the same way. */
    @Test
    void theSwitchReadsSystemPropertiesAlike() {
        runner.withSystemProperties("bloom-guard.enabled=on").withPropertyValues("bloom-guard.filters.users.expected-size=10")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(BloomGuardAdvisor.class);
                    assertThat(filter(context, "users").state()).isEqualTo(FilterState.LOADING);
                });
    }

    /** A guarded bean that counts how often its method really runs. */
    static class UserLookup {

        private final AtomicInteger calls = new AtomicInteger();

        /** How often {@link #find} really ran (a method: the bean is a proxy, whose fields are not the target's). */
        public int calls() {
            return calls.get();
        }

        @BloomGuarded(filter = "users")
        public Optional<String> find(Long id) {
            calls.incrementAndGet();
            return (id < 100) ? Optional.of("user " + id) : Optional.empty();
        }
    }

    /**
     * The switch is often thrown when memory or Redis is the trouble: switched off, a filter sized for more than
     * the heap (5·10⁹ keys, 6 GiB; the tests run with 2 GiB) takes none of it and does not stop startup, and a
     * Redis filter needs neither Redis nor Spring Data Redis.
     */
    @Test
    void disabledFiltersHoldNoBitsAndNeedNoBackend() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
                .withPropertyValues("bloom-guard.enabled=false", "bloom-guard.filters.users.expected-size=5000000000",
                        "bloom-guard.filters.orders.backend=redis")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    NamedBloomFilter users = filter(context, "users");
                    assertThat(users.bitSize()).isZero();
                    assertThat(users.sizing().expectedSize()).isEqualTo(5_000_000_000L);
                    NamedBloomFilter orders = filter(context, "orders");
                    assertThat(orders.state()).isEqualTo(FilterState.DISABLED);
                    // A put may always be a new key, so code deduplicating on put's answer skips nothing.
                    assertThat(orders.put("order:1")).isTrue();
                    assertThat(orders.put("order:1")).isTrue();
                    assertThat(orders.mightContain("order:2")).isTrue();
                    assertThat(orders.approximateElementCount()).isZero();
                    assertThatExceptionOfType(IllegalStateException.class).isThrownBy(orders::rebuild)
                            .withMessageContaining("bloom-guard.enabled=false");
                });
        // With Lettuce on the classpath but no RedisConnectionFactory (Redis not configured), it starts too.
        runner.withPropertyValues("bloom-guard.enabled=false", "bloom-guard.filters.orders.backend=redis")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void worksWithoutJdbcTransactionsOrSpringData() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.jdbc", "org.springframework.transaction",
                "org.springframework.data", "javax.sql", "io.lettuce"))
                .withPropertyValues("bloom-guard.filters.users.expected-size=100")
                .withBean(BloomKeySource.class, () -> BloomKeySource.of("users", () -> Stream.of(1L, 2L, 3L)))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(FilterPreloader.class).preloadAll();
                    NamedBloomFilter users = filter(context, "users");
                    assertThat(users.state()).isEqualTo(FilterState.READY);
                    assertThat(users.mightContain("2")).isTrue();
                });
    }

    @Test
    void aUserRegistryReplacesOurs() {
        runner.withBean(BloomFilterRegistry.class, () -> new FixedBloomFilterRegistry(List.of()))
                .run(context -> assertThat(context).hasSingleBean(BloomFilterRegistry.class)
                        .getBean(BloomFilterRegistry.class).isInstanceOf(FixedBloomFilterRegistry.class));
    }

    @Test
    void everyBeanCanBeReplacedByTheUser() {
        List<Method> beanMethods = new ArrayList<>();
        List<Class<?>> configurations = new ArrayList<>(List.of(BloomGuardAutoConfiguration.class));
        configurations.addAll(List.of(BloomGuardAutoConfiguration.class.getDeclaredClasses()));
        configurations.add(RedisBackendConfiguration.class);
        for (Class<?> configuration : configurations) {
            for (Method method : configuration.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Bean.class)) {
                    beanMethods.add(method);
                }
            }
        }
        assertThat(beanMethods).hasSizeGreaterThan(5).allSatisfy(method -> assertThat(
                method.isAnnotationPresent(ConditionalOnMissingBean.class)).as("%s is @ConditionalOnMissingBean", method)
                .isTrue());
    }

    private void assertInvalid(String property, String name, String value, String allowed) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis").isNotNull();
            assertThat(analysis.getDescription()).contains("Invalid value '" + value + "' for property " + name)
                    .contains(allowed);
            assertThat(analysis.getAction()).contains("Update " + name);
        });
    }

    /** A filter bean, looked up the way {@code @Qualifier("name")} injects it. */
    static NamedBloomFilter filter(org.springframework.context.ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }

}
