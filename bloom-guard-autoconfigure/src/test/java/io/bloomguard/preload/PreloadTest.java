package io.bloomguard.preload;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.OwnThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup preload, run by a real SpringApplication with an H2 database. */
@ExtendWith(OutputCaptureExtension.class)
class PreloadTest {

    private static final String[] BASE = { "--spring.main.banner-mode=off",
            "--spring.datasource.url=jdbc:h2:mem:preload-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
            "--spring.sql.init.mode=never", "--bloom-guard.defaults.expected-size=100000" };

    @Test
    void keySourcesAndSqlFillTheirFiltersBeforeTheApplicationIsReady(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(KeySourceApplication.class,
                "--bloom-guard.filters.numbers.expected-size=50000", "--bloom-guard.filters.ids.expected-size=1000",
                "--bloom-guard.filters.rows.preload.sql=SELECT id FROM preload_rows",
                "--bloom-guard.filters.labelled.preload.sql=SELECT id * 2, 'row ' || id AS label FROM preload_rows")) {
            NamedBloomFilter numbers = filter(context, "numbers");
            NamedBloomFilter rows = filter(context, "rows");
            assertThat(numbers.state()).isEqualTo(FilterState.READY);
            assertThat(rows.state()).isEqualTo(FilterState.READY);
            // More keys than one batch, from a stream read inside a transaction.
            for (long key = 0; key < 25_000; key++) {
                assertThat(numbers.mightContain(key)).isTrue();
            }
            assertThat(KeySourceApplication.readInTransaction).isTrue();
            for (long id = 1; id <= 30_000; id++) {
                assertThat(rows.mightContain(id)).isTrue();
            }
            assertThat(rows.approximateElementCount()).isBetween(29_400L, 30_600L);
            // A query may select more than the key: the first column is the key.
            NamedBloomFilter labelled = filter(context, "labelled");
            assertThat(labelled.state()).isEqualTo(FilterState.READY);
            for (long id = 1; id <= 30_000; id++) {
                assertThat(labelled.mightContain(id * 2)).isTrue();
            }
            assertThat(context.getBean(FilterPreloader.class).results().get("rows").keys()).isEqualTo(30_000);
            assertThat(output).contains("Preloaded filter 'numbers': 25000 keys in")
                    .contains("Preloaded filter 'rows': 30000 keys in").contains("keys/s); ready");
        }
    }

    /**
     * An application that sends read-only transactions to a replica (here Spring's LazyConnectionDataSourceProxy
     * with a read-only DataSource): the preload reads the primary, so rows committed there and not yet replicated
     * are in the filter.
     */
    @Test
    void thePreloadReadsThePrimaryWhenReadOnlyTransactionsGoToAReplica() {
        try (ConfigurableApplicationContext context = run(ReplicaApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000",
                "--bloom-guard.filters.rows.preload.sql=SELECT id FROM replicated_rows")) {
            NamedBloomFilter rows = filter(context, "rows");
            assertThat(rows.state()).isEqualTo(FilterState.READY);
            assertThat(context.getBean(FilterPreloader.class).results().get("rows").keys()).isEqualTo(2_000);
            // Rows 1001 to 2000 are on the primary only, as if committed within the replica's lag.
            for (long id = 1; id <= 2_000; id++) {
                assertThat(rows.mightContain(id)).as("row %d", id).isTrue();
            }
        }
    }

    /**
     * A NULL key (a NULL column, or a concatenation with a NULL part) is skipped, and its row is then not in the
     * filter: the log says so, with the filter and the count.
     */
    @Test
    void nullKeysAreSkippedAndCountedInAWarning(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(SkuApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000", "--bloom-guard.filters.skus.expected-size=1000",
                "--bloom-guard.filters.skus.preload.sql=SELECT tenant || ':' || sku FROM products")) {
            NamedBloomFilter skus = filter(context, "skus");
            assertThat(skus.state()).isEqualTo(FilterState.READY);
            assertThat(skus.mightContain("acme:a-1")).isTrue();
            assertThat(skus.mightContain("globex:g-1")).isTrue();
            assertThat(context.getBean(FilterPreloader.class).results().get("skus").keys()).isEqualTo(3);
            assertThat(output).contains("Preloaded filter 'skus': 3 keys in")
                    .containsPattern("WARN .* Preload of filter 'skus' skipped 2 null keys \\(from preload\\.sql of 'skus'")
                    .contains("their rows are not in the filter");
        }
    }

    /**
     * While a filter loads, its guarded calls run as written and readiness says REFUSING_TRAFFIC; once loaded,
     * absent keys are rejected and the application is ready.
     */
    @Test
    void whileLoadingCallsPassThroughAndReadinessWaits() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        BlockingApplication.loading = loading;
        BlockingApplication.release = release;
        AtomicReference<ConfigurableApplicationContext> contextRef = new AtomicReference<>();
        SpringApplication application = application(BlockingApplication.class);
        application.addInitializers((ApplicationContextInitializer<ConfigurableApplicationContext>) contextRef::set);
        CompletableFuture<ConfigurableApplicationContext> started = OwnThread
                .supply(() -> application.run(args("--bloom-guard.filters.ids.expected-size=1000")));
        try {
            assertThat(loading.await(30, TimeUnit.SECONDS)).as("preload started").isTrue();
            ConfigurableApplicationContext context = contextRef.get();
            NamedBloomFilter ids = filter(context, "ids");
            Finder finder = context.getBean(Finder.class);
            assertThat(ids.state()).isEqualTo(FilterState.LOADING);
            assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                    .isNotEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            int callsBefore = finder.calls();
            assertThat(finder.find(999_999L)).isEmpty();
            assertThat(finder.calls()).as("the method ran").isEqualTo(callsBefore + 1);
            release.countDown();
            started.get(30, TimeUnit.SECONDS);
            assertThat(ids.state()).isEqualTo(FilterState.READY);
            assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                    .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(finder.find(999_999L)).isEmpty();
            assertThat(finder.calls()).as("rejected without running").isEqualTo(callsBefore + 1);
            assertThat(finder.find(7L)).contains("found 7");
        }
        finally {
            release.countDown();
            started.thenAccept(ConfigurableApplicationContext::close);
        }
    }

    @Test
    void aFailedPreloadLeavesTheFilterPassingEverythingAndSaysWhy(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(FailingApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000")) {
            NamedBloomFilter ids = filter(context, "ids");
            assertThat(ids.state()).isEqualTo(FilterState.FAILED);
            Finder finder = context.getBean(Finder.class);
            int calls = finder.calls();
            assertThat(finder.find(999_999L)).isEmpty();
            assertThat(finder.calls()).isEqualTo(calls + 1);
            // Two keys were read before the source threw, though none had been handed on in a batch.
            assertThat(output).contains("Preload of filter 'ids' failed after 2 keys, reading bean 'ids';"
                    + " it lets every call through").contains("connection reset while reading ids");
            PreloadResult result = context.getBean(FilterPreloader.class).results().get("ids");
            assertThat(result.succeeded()).isFalse();
            assertThat(result.keys()).isEqualTo(2);
            assertThat(result.failure()).hasMessageContaining("Key source bean 'ids' failed")
                    .hasMessageContaining("connection reset while reading ids");
        }
    }

    /**
     * A key of a type the filter cannot hold fails the preload with a message for the source it came from: which
     * source, the type as Java writes it, and where to convert it.
     */
    @Test
    void anUnsupportedKeyTypeSaysWhichSourceAndWhereToConvertIt(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(UnsupportedKeyApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000", "--bloom-guard.filters.days.expected-size=1000",
                "--bloom-guard.filters.days.preload.sql=SELECT observed_on FROM holidays")) {
            assertThat(filter(context, "ids").state()).isEqualTo(FilterState.FAILED);
            assertThat(filter(context, "days").state()).isEqualTo(FilterState.FAILED);
            Map<String, PreloadResult> results = context.getBean(FilterPreloader.class).results();
            assertThat(results.get("ids").failure()).hasMessageStartingWith(
                    "Key source bean 'ids' yielded a key of type byte[], which a Bloom filter cannot hold")
                    .hasMessageContaining("Convert it in the key source's stream");
            assertThat(results.get("days").failure()).hasMessageStartingWith("Key source preload.sql of 'days':"
                    + " SELECT observed_on FROM holidays yielded a key of type java.sql.Date")
                    .hasMessageContaining("Convert it in preload.sql");
            assertThat(output).contains("Preload of filter 'ids' failed after 1 key, reading bean 'ids'")
                    .contains("Preload of filter 'days' failed after 0 keys, reading preload.sql of 'days'")
                    .doesNotContain("type [B").doesNotContain("or a key expression that yields one");
        }
    }

    @Test
    void aGuardedFilterWithNoKeySourceIsReported(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(NoSourceApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000")) {
            assertThat(filter(context, "ids").state()).isEqualTo(FilterState.READY);
            assertThat(output).contains("Filter 'ids' guards Finder.find but has no key source: it starts empty and"
                    + " rejects every key not added since");
        }
    }

    /** A filter only used from code is expected to start empty: said, not warned about. */
    @Test
    void aFilterWithNoKeySourceThatGuardsNothingIsLoggedAsReady(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(NoSourceApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000", "--bloom-guard.filters.seen-urls.expected-size=1000")) {
            assertThat(filter(context, "seen-urls").state()).isEqualTo(FilterState.READY);
            assertThat(output).contains("Filter 'seen-urls' has no key source and guards no method: ready, empty")
                    .doesNotContain("Filter 'seen-urls' guards");
        }
    }

    /** Under lazy initialization the guarded bean is still created at startup, so the warning still appears. */
    @Test
    void aGuardedFilterWithNoKeySourceIsReportedUnderLazyInitialization(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(NoSourceApplication.class,
                "--bloom-guard.filters.ids.expected-size=1000", "--spring.main.lazy-initialization=true")) {
            assertThat(output).contains("Filter 'ids' guards Finder.find but has no key source");
        }
    }

    private static ConfigurableApplicationContext run(Class<?> source, String... extra) {
        return application(source).run(args(extra));
    }

    private static SpringApplication application(Class<?> source) {
        SpringApplication application = new SpringApplication(source);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application;
    }

    private static String[] args(String... extra) {
        return Stream.concat(Stream.of(BASE), Stream.of(extra)).toArray(String[]::new);
    }

    /** A guarded class-based bean that counts how often its method really runs. */
    static class Finder {

        private final AtomicInteger calls = new AtomicInteger();

        /** How often {@link #find} really ran (a method: the bean is a proxy, whose fields are not the target's). */
        public int calls() {
            return calls.get();
        }

        @BloomGuarded(filter = "ids")
        public Optional<String> find(Long id) {
            calls.incrementAndGet();
            return (id < 100) ? Optional.of("found " + id) : Optional.empty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
            ApplicationAvailabilityAutoConfiguration.class, BloomGuardAutoConfiguration.class })
    static class Base {

        @Bean
        Finder finder() {
            return new Finder();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class KeySourceApplication extends Base {

        static volatile boolean readInTransaction;

        @Bean
        BloomKeySource numbers() {
            return BloomKeySource.of("numbers", () -> {
                readInTransaction = TransactionSynchronizationManager.isActualTransactionActive();
                return LongStream.range(0, 25_000).boxed();
            });
        }

        @Bean
        BloomKeySource ids() {
            return BloomKeySource.of("ids", () -> LongStream.range(0, 100).boxed());
        }

        /** Creates the table before the preload reads it, as a schema.sql would. */
        @Bean
        static org.springframework.beans.factory.config.BeanPostProcessor createRows() {
            return sqlOnTheDataSource("CREATE TABLE preload_rows (id BIGINT PRIMARY KEY)",
                    "INSERT INTO preload_rows SELECT X FROM SYSTEM_RANGE(1, 30000)");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SkuApplication extends Base {

        /** Creates the table before the preload reads it, as a schema.sql would. */
        @Bean
        static org.springframework.beans.factory.config.BeanPostProcessor createProducts() {
            return sqlOnTheDataSource("CREATE TABLE products (tenant VARCHAR(20), sku VARCHAR(20))",
                    "INSERT INTO products VALUES ('acme', 'a-1'), ('acme', 'a-2'), ('acme', NULL),"
                            + " (NULL, 'b-1'), ('globex', 'g-1')");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnsupportedKeyApplication extends Base {

        @Bean
        BloomKeySource ids() {
            return BloomKeySource.of("ids", () -> Stream.of(1L, "2".getBytes(StandardCharsets.UTF_8), 3L));
        }

        /** Creates the table before the preload reads it, as a schema.sql would. */
        @Bean
        static org.springframework.beans.factory.config.BeanPostProcessor createHolidays() {
            return sqlOnTheDataSource("CREATE TABLE holidays (observed_on DATE)",
                    "INSERT INTO holidays VALUES (DATE '2024-12-25')");
        }
    }

    /** One DataSource: the primary, with read-only transactions sent to a replica that lags behind it. */
    @Configuration(proxyBeanMethods = false)
    static class ReplicaApplication extends Base {

        @Bean
        javax.sql.DataSource dataSource() {
            javax.sql.DataSource primary = database("primary", 2_000);
            javax.sql.DataSource replica = database("replica", 1_000);
            LazyConnectionDataSourceProxy dataSource = new LazyConnectionDataSourceProxy(primary);
            dataSource.setReadOnlyDataSource(replica);
            return dataSource;
        }

        private static javax.sql.DataSource database(String name, int rows) {
            javax.sql.DataSource dataSource = new DriverManagerDataSource(
                    "jdbc:h2:mem:" + name + "-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE replicated_rows (id BIGINT PRIMARY KEY)");
            jdbc.execute("INSERT INTO replicated_rows SELECT X FROM SYSTEM_RANGE(1, " + rows + ")");
            return dataSource;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BlockingApplication extends Base {

        static volatile CountDownLatch loading;

        static volatile CountDownLatch release;

        @Bean
        BloomKeySource ids() {
            return BloomKeySource.of("ids", () -> {
                loading.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return LongStream.range(0, 100).boxed();
            });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingApplication extends Base {

        @Bean
        BloomKeySource ids() {
            return BloomKeySource.of("ids", () -> Stream.of(1L, 2L, 3L).map(id -> {
                if (id == 3L) {
                    // A checked exception, as code that hides it from the compiler would throw it.
                    throw FailingApplication.<RuntimeException>sneaky(new java.io.IOException(
                            "connection reset while reading ids"));
                }
                return id;
            }));
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> E sneaky(Throwable failure) throws E {
            throw (E) failure;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoSourceApplication extends Base {
    }

    /** A filter bean, looked up the way {@code @Qualifier("name")} injects it. */
    static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }

    /** Runs statements on the application's DataSource as soon as it exists, before the preload reads it. */
    static org.springframework.beans.factory.config.BeanPostProcessor sqlOnTheDataSource(String... statements) {
        AtomicBoolean done = new AtomicBoolean();
        return new org.springframework.beans.factory.config.BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof javax.sql.DataSource dataSource && done.compareAndSet(false, true)) {
                    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
                    for (String statement : statements) {
                        jdbc.execute(statement);
                    }
                }
                return bean;
            }
        };
    }
}
