package io.bloomguard.redis;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of an application whose redis filters keep a near copy ({@code redis.near-copy: true}), guarding a
 * real Spring Data JPA repository over one database: present keys are let through with no round trip, absent ones
 * are still rejected, and writes on either instance, across a rebuild, are never rejected on the other.
 */
@Timeout(180)
class RedisNearCopyApplicationIT {

    private static final long ABSENT = 987_654_321L;

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("near-copy", "near");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @Test
    void presentKeysAreLetThroughWithNoRoundTripAndAbsentOnesAreStillRejected() {
        ConfigurableApplicationContext app = start(true);
        awaitCopy(app, "customers");
        awaitCopy(app, "codes"); // its first whole read is GETRANGEs too, which the monitor would count
        CustomerRepository customers = app.getBean(CustomerRepository.class);
        Statistics statistics = statistics(app);
        try (RedisMonitor monitor = RedisMonitor.on(redis)) {
            monitor.commandsSinceLastCall();
            for (long id = 1; id <= 100; id++) {
                assertThat(customers.existsById(id)).as("customer %d", id).isTrue();
            }
            assertThat(monitor.commandsSinceLastCall().getOrDefault("getrange", 0L)).as("checks sent to Redis")
                    .isZero();

            long statements = statistics.getPrepareStatementCount();
            assertThat(customers.existsById(ABSENT)).isFalse();
            assertThat(statistics.getPrepareStatementCount()).as("rejected: no query").isEqualTo(statements);
            assertThat(monitor.commandsSinceLastCall().getOrDefault("getrange", 0L))
                    .as("the absent key, confirmed in Redis").isEqualTo(1);
        }
    }

    /**
     * Writers on both instances, each record looked up on the other instance as soon as its write returns, and a
     * rebuild in the middle, after which each instance's copy is of the new generation: no lookup is rejected.
     */
    @Test
    void writesOnEitherInstanceAcrossARebuildAreNeverRejectedOnTheOther() throws Exception {
        ConfigurableApplicationContext first = start(true);
        ConfigurableApplicationContext second = start(false);
        awaitCopy(first, "codes");
        awaitCopy(second, "codes");
        Queue<String> written = new ConcurrentLinkedQueue<>();
        AtomicInteger falseNegatives = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger sequence = new AtomicInteger();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            CustomerRepository writer = repository(w % 2 == 0 ? first : second);
            CustomerRepository reader = repository(w % 2 == 0 ? second : first);
            running.add(writers.submit(() -> {
                while (!stop.get()) {
                    String code = "n-" + sequence.incrementAndGet();
                    writer.save(new Customer(code, "tn", code));
                    written.add(code);
                    if (reader.findByTenantAndCode("tn", code).isEmpty()) {
                        falseNegatives.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            awaitUntil("writers running", () -> written.size() > 40, Duration.ofSeconds(20));
            long keys = filter(first, "codes").rebuild();
            assertThat(keys).isGreaterThanOrEqualTo(1000 + 40);
            awaitUntil("both copies of the rebuilt generation read, writers still going",
                    () -> copyOf(first, "codes").generation().endsWith("#2") && copyOf(first, "codes").answering()
                            && copyOf(second, "codes").generation().endsWith("#2")
                            && copyOf(second, "codes").answering() && written.size() > keys - 1000 + 40,
                    Duration.ofSeconds(30));
        }
        finally {
            stop.set(true);
            for (Future<?> writer : running) {
                writer.get(30, TimeUnit.SECONDS);
            }
            writers.shutdownNow();
        }
        assertThat(falseNegatives.get()).as("records rejected on the other instance right after their write").isZero();
        for (String code : written) {
            assertThat(repository(first).findByTenantAndCode("tn", code)).as("code %s", code).isPresent();
            assertThat(repository(second).findByTenantAndCode("tn", code)).as("code %s", code).isPresent();
        }
        for (ConfigurableApplicationContext app : List.of(first, second)) {
            assertThat(filter(app, "codes").trustedToReject()).isTrue();
            long statements = statistics(app).getPrepareStatementCount();
            assertThat(repository(app).findByTenantAndCode("tn", "never-written")).isEmpty();
            assertThat(statistics(app).getPrepareStatementCount()).as("still rejecting").isEqualTo(statements);
            assertThat(copyOf(app, "codes").answeredHere()).as("lookups the copy let through").isPositive();
        }
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase) {
        Map<String, String> properties = new HashMap<>();
        for (String filter : List.of("customers", "codes")) {
            properties.put("bloom-guard.filters." + filter + ".backend", "redis");
            properties.put("bloom-guard.filters." + filter + ".redis.near-copy", "true");
        }
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        // rebuild-grace stays at its default: the writers' saves put their keys just before they commit, and a
        // rebuild must not read its key source between the two (docs/redis.md, rebuilds).
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.put("bloom-guard.redis.check-timeout", "200ms");
        return apps.start(redis, initializeDatabase, properties);
    }

    private static void awaitCopy(ConfigurableApplicationContext app, String name) {
        awaitUntil("the near copy of " + name + " read", () -> copyOf(app, name).answering(),
                Duration.ofSeconds(10));
    }

    private static io.bloomguard.core.SharedFilterDetails.NearCopy copyOf(ConfigurableApplicationContext app,
            String name) {
        return ((RedisBloomFilter) filter(app, name).backend()).details().nearCopy();
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }

    private static CustomerRepository repository(ConfigurableApplicationContext context) {
        return context.getBean(CustomerRepository.class);
    }

    private static Statistics statistics(ConfigurableApplicationContext context) {
        return context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class).getStatistics();
    }

    /** Waits for {@code condition}, polling every 10 ms as the other Redis tests do. */
    private static void awaitUntil(String what, Callable<Boolean> condition, Duration atMost) {
        await(what).atMost(atMost).pollInterval(Duration.ofMillis(10)).until(condition);
    }
}
