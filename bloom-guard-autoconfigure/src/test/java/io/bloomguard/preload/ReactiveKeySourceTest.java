package io.bloomguard.preload;

import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.PreloadTest.Finder;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.OwnThread;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.r2dbc.core.DatabaseClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static io.bloomguard.preload.PreloadTest.filter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Key sources of a reactive or coroutine application ({@link ReactiveBloomKeySource}): a publisher read with bounded
 * demand, the filter ready only once it completed, and a preload that needs no JDBC.
 */
@ExtendWith(OutputCaptureExtension.class)
class ReactiveKeySourceTest {

    private static final String[] BASE = { "--spring.main.banner-mode=off",
            "--bloom-guard.defaults.expected-size=100000", "--bloom-guard.filters.ids.error-rate=0.01" };

    @Test
    void aPublisherOfKeysFillsItsFilterAndTheFilterIsReady(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(FluxApplication.class,
                "--bloom-guard.filters.numbers.expected-size=50000")) {
            NamedBloomFilter numbers = filter(context, "numbers");
            assertThat(numbers.state()).isEqualTo(FilterState.READY);
            for (long key = 0; key < 25_000; key++) {
                assertThat(numbers.mightContain(key)).as("key %d", key).isTrue();
            }
            assertThat(context.getBean(FilterPreloader.class).results().get("numbers").keys()).isEqualTo(25_000);
            assertThat(output).contains("Preloading filter 'numbers' from [bean 'numbers']")
                    .contains("Preloaded filter 'numbers': 25000 keys in");
            // And the guard acts on it: an absent id is rejected without running the method.
            Finder finder = context.getBean(Finder.class);
            int calls = finder.calls();
            assertThat(finder.find(999_999L)).isEmpty();
            assertThat(finder.find(7L)).contains("found 7");
            assertThat(finder.calls()).isEqualTo(calls + 1);
        }
    }

    /**
     * A publisher that emits on a thread of its own, as a database driver does, is asked for a batch at a time, never
     * for everything: at no moment are more than 10,000 keys requested and not yet delivered. The filter stays
     * {@code LOADING}, and the application not ready, until the publisher completes, though every key has arrived.
     */
    @Test
    void aPublisherIsReadInBoundedBatchesAndTheFilterIsReadyOnlyOnceItCompletes() throws Exception {
        AsyncPublisher keys = new AsyncPublisher(25_000);
        AsyncApplication.keys = keys;
        AtomicReference<ConfigurableApplicationContext> contextRef = new AtomicReference<>();
        SpringApplication application = application(AsyncApplication.class);
        application.addInitializers((ApplicationContextInitializer<ConfigurableApplicationContext>) contextRef::set);
        CompletableFuture<ConfigurableApplicationContext> started = OwnThread
                .supply(() -> application.run(args("--bloom-guard.filters.ids.expected-size=50000")));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> keys.emitted.get() == 25_000);
            ConfigurableApplicationContext context = contextRef.get();
            NamedBloomFilter ids = filter(context, "ids");
            // Every key arrived; the publisher has not completed, so some may yet come.
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
                    .until(() -> ids.state() == FilterState.LOADING);
            assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                    .isNotEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            keys.complete.countDown();
            started.get(30, TimeUnit.SECONDS);
            assertThat(ids.state()).isEqualTo(FilterState.READY);
            for (long key = 0; key < 25_000; key++) {
                assertThat(ids.mightContain(key)).as("key %d", key).isTrue();
            }
            assertThat(keys.requests).as("demand asked for").hasSizeGreaterThanOrEqualTo(3)
                    .allSatisfy(n -> assertThat(n).isBetween(1L, 10_000L));
            assertThat(keys.maxOutstanding.get()).as("keys requested and not yet delivered, at most")
                    .isLessThanOrEqualTo(10_000);
        }
        finally {
            keys.complete.countDown();
            started.thenAccept(ConfigurableApplicationContext::close);
        }
    }

    /** As a failing {@link BloomKeySource} does: the filter lets every call through, and the log says why. */
    @Test
    void aFailingPublisherLeavesTheFilterLettingCallsThroughAndSaysWhy(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(FailingApplication.class)) {
            NamedBloomFilter ids = filter(context, "ids");
            assertThat(ids.state()).isEqualTo(FilterState.FAILED);
            assertThat(ids.trustedToReject()).isFalse();
            Finder finder = context.getBean(Finder.class);
            int calls = finder.calls();
            assertThat(finder.find(999_999L)).isEmpty();
            assertThat(finder.calls()).as("the method ran").isEqualTo(calls + 1);
            assertThat(output).contains("Preload of filter 'ids' failed after 2 keys, reading bean 'ids';"
                    + " it lets every call through").contains("connection reset while reading ids");
            PreloadResult result = context.getBean(FilterPreloader.class).results().get("ids");
            assertThat(result.succeeded()).isFalse();
            assertThat(result.keys()).isEqualTo(2);
            assertThat(result.failure()).hasMessageContaining("Key source bean 'ids' failed")
                    .hasMessageContaining("connection reset while reading ids");
        }
    }

    /** A key the filter cannot hold fails the load, and the publisher is told to stop: its cursor is not left open. */
    @Test
    void anUnsupportedKeyFailsTheLoadAndCancelsThePublisher(CapturedOutput output) {
        try (ConfigurableApplicationContext context = run(UnsupportedKeyApplication.class)) {
            assertThat(filter(context, "ids").state()).isEqualTo(FilterState.FAILED);
            assertThat(UnsupportedKeyApplication.cancelled).isTrue();
            assertThat(output).contains("Preload of filter 'ids' failed after 1 key, reading bean 'ids'")
                    .contains("yielded a key of type byte[]");
        }
    }

    /** A rebuild subscribes again and reads what the publisher gives now: a key added since is in. */
    @Test
    void aRebuildReadsThePublisherAgain() {
        Set<Long> rows = ConcurrentHashMap.newKeySet();
        LongStream.range(0, 100).forEach(rows::add);
        RebuildApplication.rows = rows;
        RebuildApplication.subscriptions.set(0);
        try (ConfigurableApplicationContext context = run(RebuildApplication.class)) {
            NamedBloomFilter ids = filter(context, "ids");
            assertThat(ids.state()).isEqualTo(FilterState.READY);
            assertThat(ids.mightContain(500L)).isFalse();
            rows.remove(7L);
            rows.add(500L);
            assertThat(ids.rebuild()).isEqualTo(100);
            assertThat(ids.mightContain(500L)).isTrue();
            assertThat(RebuildApplication.subscriptions).hasValue(2);
            assertThat(ids.state()).isEqualTo(FilterState.READY);
        }
    }

    /**
     * Reading a publisher waits for its keys: on one of Reactor's non-blocking threads (whose own keys may come on
     * that very thread) it is refused rather than block the thread, and the live filter keeps its keys.
     */
    @Test
    void aRebuildOnANonBlockingThreadIsRefusedAndTheFilterKeepsGuarding() {
        Set<Long> rows = ConcurrentHashMap.newKeySet();
        LongStream.range(0, 100).forEach(rows::add);
        RebuildApplication.rows = rows;
        RebuildApplication.subscriptions.set(0);
        try (ConfigurableApplicationContext context = run(RebuildApplication.class)) {
            NamedBloomFilter ids = filter(context, "ids");
            assertThatException().isThrownBy(() -> Mono.fromCallable(ids::rebuild)
                            .subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
                    .withMessageContaining("is one of Reactor's non-blocking threads, which must not wait");
            assertThat(RebuildApplication.subscriptions).as("subscribed at startup only").hasValue(1);
            assertThat(ids.state()).isEqualTo(FilterState.READY);
            assertThat(ids.mightContain(42L)).isTrue();
        }
    }

    /**
     * An R2DBC application, without spring-jdbc or javax.sql: its keys come from a {@code DatabaseClient} query, and
     * {@code preload.sql}, which needs a DataSource, says what to declare instead.
     */
    @Test
    void anR2dbcApplicationPreloadsWithoutJdbc() {
        ApplicationContextRunner r2dbcOnly = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.springframework.jdbc", "javax.sql"))
                .withUserConfiguration(R2dbcConfiguration.class)
                .withPropertyValues("bloom-guard.filters.users.expected-size=1000");
        r2dbcOnly.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("bloomSqlKeySourceFactory");
            context.getBean(FilterPreloader.class).preloadAll();
            NamedBloomFilter users = filter(context.getSourceApplicationContext(), "users");
            assertThat(users.state()).isEqualTo(FilterState.READY);
            for (long id = 1; id <= 300; id++) {
                assertThat(users.mightContain(id)).as("user %d", id).isTrue();
            }
            assertThat(context.getBean(FilterPreloader.class).results().get("users").keys()).isEqualTo(300);
        });
        r2dbcOnly.withPropertyValues("bloom-guard.filters.orders.preload.sql=SELECT id FROM orders").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("bloom-guard.filters.orders.preload.sql")
                        .hasMessageContaining("a ReactiveBloomKeySource over R2DBC's DatabaseClient"));
    }

    /**
     * A publisher that sends more keys than were asked for breaks the protocol, and what it sends is not taken
     * unbounded: the load fails, saying so.
     */
    @Test
    void aPublisherThatIgnoresDemandFailsTheLoad() {
        AtomicBoolean cancelled = new AtomicBoolean();
        Publisher<Long> flood = subscriber -> {
            subscriber.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                    cancelled.set(true);
                }
            });
            for (long key = 0; key < 20; key++) {
                subscriber.onNext(key);
            }
            subscriber.onComplete();
        };
        BloomKeySource source = new PublisherKeySource("flood", ReactiveBloomKeySource.of("ids", () -> flood), 10);
        try (Stream<?> keys = source.keys()) {
            assertThatIllegalStateException().isThrownBy(keys::count)
                    .withMessageContaining("sent more keys than were requested");
        }
        assertThat(cancelled).isTrue();
    }

    private static ConfigurableApplicationContext run(Class<?> source, String... extra) {
        return application(source).run(args(extra));
    }

    private static String[] args(String... extra) {
        return Stream.concat(Stream.of(BASE), Stream.of(extra)).toArray(String[]::new);
    }

    private static SpringApplication application(Class<?> source) {
        SpringApplication application = new SpringApplication(source);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ AopAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
            BloomGuardAutoConfiguration.class })
    static class Base {

        @Bean
        Finder finder() {
            return new Finder();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FluxApplication extends Base {

        @Bean
        ReactiveBloomKeySource numbers() {
            return ReactiveBloomKeySource.of("numbers", () -> Flux.range(0, 25_000).map(Long::valueOf));
        }

        @Bean
        ReactiveBloomKeySource ids() {
            return ReactiveBloomKeySource.of("ids", () -> Flux.range(0, 100).map(Long::valueOf));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncApplication extends Base {

        static volatile AsyncPublisher keys;

        @Bean
        ReactiveBloomKeySource ids() {
            return ReactiveBloomKeySource.of("ids", () -> keys);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingApplication extends Base {

        @Bean
        ReactiveBloomKeySource ids() {
            return ReactiveBloomKeySource.of("ids", () -> Flux.concat(Flux.just(1L, 2L),
                    Flux.error(new IOException("connection reset while reading ids"))));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnsupportedKeyApplication extends Base {

        static volatile boolean cancelled;

        @Bean
        ReactiveBloomKeySource ids() {
            cancelled = false;
            return ReactiveBloomKeySource.of("ids", () -> Flux.<Object>just(1L, "2".getBytes(StandardCharsets.UTF_8))
                    .concatWith(Flux.range(3, 100_000).map(Long::valueOf)).doOnCancel(() -> cancelled = true));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RebuildApplication extends Base {

        static volatile Set<Long> rows;

        static final AtomicInteger subscriptions = new AtomicInteger();

        @Bean
        ReactiveBloomKeySource ids() {
            return ReactiveBloomKeySource.of("ids", () -> Flux.defer(() -> Flux.fromIterable(List.copyOf(rows)))
                    .doOnSubscribe(subscription -> subscriptions.incrementAndGet()));
        }
    }

    /** An R2DBC database and its key source, with no DataSource anywhere. */
    @Configuration(proxyBeanMethods = false)
    static class R2dbcConfiguration {

        @Bean
        ConnectionFactory connectionFactory() {
            return ConnectionFactories.get("r2dbc:h2:mem:///users-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1");
        }

        @Bean
        DatabaseClient databaseClient(ConnectionFactory connectionFactory) {
            DatabaseClient db = DatabaseClient.create(connectionFactory);
            db.sql("CREATE TABLE users (id BIGINT PRIMARY KEY)").then().block();
            db.sql("INSERT INTO users SELECT X FROM SYSTEM_RANGE(1, 300)").then().block();
            return db;
        }

        @Bean
        ReactiveBloomKeySource userIds(DatabaseClient db) {
            return ReactiveBloomKeySource.of("users",
                    () -> db.sql("SELECT id FROM users").map(row -> row.get(0, Long.class)).all());
        }
    }

    /**
     * Emits the keys asked for on a thread of its own, a request at a time, and completes once told to: records
     * every request and the most keys ever requested and not yet delivered.
     */
    static final class AsyncPublisher implements Publisher<Long> {

        final List<Long> requests = new CopyOnWriteArrayList<>();
        final AtomicLong emitted = new AtomicLong();
        final AtomicLong maxOutstanding = new AtomicLong();
        final CountDownLatch complete = new CountDownLatch(1);
        private final long total;

        AsyncPublisher(long total) {
            this.total = total;
        }

        @Override
        public void subscribe(Subscriber<? super Long> subscriber) {
            ExecutorService thread = Executors.newSingleThreadExecutor();
            AtomicLong requested = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            subscriber.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                    requests.add(n);
                    long outstanding = requested.addAndGet(n) - emitted.get();
                    maxOutstanding.accumulateAndGet(outstanding, Math::max);
                    try {
                        thread.execute(() -> emit(subscriber, requested, done, thread));
                    }
                    catch (RejectedExecutionException ex) {
                        // after it completed or was cancelled: a request is then nothing (rule 3.6)
                    }
                }

                @Override
                public void cancel() {
                    thread.shutdownNow();
                }
            });
        }

        private void emit(Subscriber<? super Long> subscriber, AtomicLong requested, AtomicBoolean done,
                ExecutorService thread) {
            while (emitted.get() < Math.min(requested.get(), total)) {
                subscriber.onNext(emitted.getAndIncrement());
            }
            if (emitted.get() == total && done.compareAndSet(false, true)) {
                try {
                    complete.await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                subscriber.onComplete();
                thread.shutdown();
            }
        }
    }
}
