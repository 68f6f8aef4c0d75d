package io.bloomguard.redis;

import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of an application whose {@code codes} filter is leased ({@code redis.near-copy: leased}), guarding a
 * real Spring Data JPA repository over one database. The second is flooded with lookups of absent codes, so it answers
 * them under its lease, and its subscriber connection hands messages over half a lease late. Codes saved on the first,
 * one per transaction through the repository or three in one {@code TransactionTemplate}, are found on the second as
 * soon as the save (or the template) returns.
 */
@Timeout(180)
class RedisLeasedApplicationIT {

    private static final Duration LEASE = Duration.ofMillis(50);

    private static RedisServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void codesSavedOnOneInstanceAreFoundOnTheOtherWhileItAnswersAFloodUnderItsLease() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + redis.port()));
        try (GuardedApplications apps = new GuardedApplications("leased", "leased")) {
            ConfigurableApplicationContext first = apps.start(redis, true, properties());
            // The second's backend is the test's (its shutdown closes it too): the same settings, its subscriber half a
            // lease behind.
            RedisFilterBackend lagging = new RedisFilterBackend(
                    () -> new LaggingRedisPort(LettuceRedisPort.connect(client), LEASE.dividedBy(2)),
                    RedisBackendSettingsBuilder.from(TestRedisBackend.FAST).keyPrefix(apps.keyPrefix())
                            .checkTimeout(Duration.ofSeconds(2)).rebuildGrace(Duration.ofSeconds(1))
                            .nearCopyLease(LEASE).build());
            ConfigurableApplicationContext second = apps.start(redis, false, properties(),
                    context -> context.getBeanFactory().registerSingleton("bloomGuardRedisBackend", lagging));
            try (Flood flood = new Flood(repository(second))) {
                await("the second instance answering absent codes under its lease").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(10)).untilAsserted(() -> assertThat(copy(second).absentKeys())
                                .as("%s, lease state %s, %d lookups", copy(second), redis.command("HGET",
                                        apps.keyPrefix() + "{codes}:meta", "lease"), flood.lookups())
                                .isEqualTo("lease"));
                long rejectedBefore = copy(second).rejectedHere();
                List<String> missed = new ArrayList<>();
                TransactionTemplate transaction = new TransactionTemplate(first.getBean(PlatformTransactionManager.class));
                for (int i = 0; i < 150; i++) {
                    List<String> codes = (i % 3 == 0) ? List.of("t-" + i + "-a", "t-" + i + "-b", "t-" + i + "-c")
                            : List.of("s-" + i);
                    if (codes.size() == 1) {
                        repository(first).save(new Customer(codes.get(0), "tn", codes.get(0)));
                    }
                    else {
                        transaction.executeWithoutResult(status -> codes.forEach(
                                code -> repository(first).save(new Customer(code, "tn", code))));
                    }
                    for (String code : codes) {
                        if (repository(second).findByTenantAndCode("tn", code).isEmpty()) {
                            missed.add(code);
                        }
                    }
                }
                assertThat(missed).as("codes the second instance rejected right after their commit").isEmpty();
                assertThat(copy(second).rejectedHere() - rejectedBefore)
                        .as("absent codes the second instance answered with no query meanwhile").isPositive();
                assertThat(flood.lookups()).isPositive();
            }
        }
        finally {
            client.shutdown();
        }
    }

    private static Map<String, String> properties() {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters.codes.backend", "redis");
        properties.put("bloom-guard.filters.codes.redis.near-copy", "leased");
        properties.put("bloom-guard.redis.near-copy-lease", LEASE.toMillis() + "ms");
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.put("bloom-guard.redis.check-timeout", "2s");
        return properties;
    }

    /** Lookups of codes no row has, on many threads, until closed. */
    private static final class Flood implements AutoCloseable {

        private final AtomicBoolean flooding = new AtomicBoolean(true);
        private final ExecutorService threads = Executors.newFixedThreadPool(8);
        private final AtomicLong lookups = new AtomicLong();
        private final List<Future<?>> running = new ArrayList<>();

        Flood(CustomerRepository customers) {
            for (int thread = 0; thread < 8; thread++) {
                String stem = "absent-" + thread + "-";
                running.add(threads.submit(() -> {
                    for (long i = 0; flooding.get(); i++) {
                        customers.findByTenantAndCode("tn", stem + i);
                        lookups.incrementAndGet();
                    }
                }));
            }
        }

        long lookups() {
            return lookups.get();
        }

        @Override
        public void close() throws Exception {
            flooding.set(false);
            for (Future<?> each : running) {
                each.get();
            }
            threads.shutdownNow();
        }
    }

    private static SharedFilterDetails.NearCopy copy(ConfigurableApplicationContext app) {
        NamedBloomFilter codes = BeanFactoryAnnotationUtils.qualifiedBeanOfType(app.getBeanFactory(),
                NamedBloomFilter.class, "codes");
        return ((RedisBloomFilter) codes.backend()).details().nearCopy();
    }

    private static CustomerRepository repository(ConfigurableApplicationContext context) {
        return context.getBean(CustomerRepository.class);
    }
}
