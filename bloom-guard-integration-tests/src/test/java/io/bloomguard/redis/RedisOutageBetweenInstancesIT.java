package io.bloomguard.redis;

import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of an application (two Spring contexts over one database) share the {@code customers} filter in
 * one real {@code redis-server}. Instance A creates customers without pause ({@code @BloomPut} keyed on the
 * generated id); instance B looks up each customer A created, as soon as A's write has returned. Redis freezes for
 * 2 s ({@code DEBUG SLEEP}) in the middle. What B sees of A's records is what {@code on-add-failure} decides.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class RedisOutageBetweenInstancesIT {

    private static final Log logger = LogFactory.getLog(RedisOutageBetweenInstancesIT.class);

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("outage", "it");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    /**
     * {@code fail}: A's writes whose key Redis does not take fail and roll back, so B never rejects a customer A
     * created.
     */
    @Test
    void underFailNoInstanceRejectsARecordAnotherCreatedDuringTheFreeze() throws Exception {
        ConfigurableApplicationContext a = start(true, Map.of("bloom-guard.filters.customers.on-add-failure", "fail"));
        ConfigurableApplicationContext b = start(false, Map.of());

        Outcome outcome = createInAWhileBLooksUpAcrossAFreeze(a, b);

        logger.info("on-add-failure: fail: A created " + outcome.created.size() + " customers, " + outcome.failedWrites
                + " writes failed; B rejected " + outcome.rejectedAfterWakingMillis.size());
        assertThat(outcome.failedWrites).as("A's writes that failed during the freeze").isPositive();
        assertThat(outcome.rejectedAfterWakingMillis).as("customers A created that B rejected").isEmpty();
        assertThat(new JdbcTemplate(a.getBean(javax.sql.DataSource.class)).queryForObject(
                "SELECT COUNT(*) FROM customer WHERE name LIKE 'outage-%'", Integer.class))
                .as("rows written: the failed writes rolled back").isEqualTo(outcome.created.size());
        assertEveryCustomerIsFoundThroughB(b, outcome);
    }

    /**
     * {@code buffer} (the default): A's writes all succeed; B may reject the customers whose adds A still holds,
     * but only until A replays them, within 250 ms of Redis answering again. How many B rejected is logged.
     */
    @Test
    void underBufferAnotherInstanceRejectsNoRecordLaterThan250MsAfterRedisAnswersAgain() throws Exception {
        ConfigurableApplicationContext a = start(true, Map.of());
        ConfigurableApplicationContext b = start(false, Map.of());

        Outcome outcome = createInAWhileBLooksUpAcrossAFreeze(a, b);

        logger.info("on-add-failure: buffer: A created " + outcome.created.size() + " customers, "
                + outcome.failedWrites + " writes failed; B rejected " + outcome.rejectedAfterWakingMillis.size()
                + ", at these ms after Redis answered again: " + outcome.rejectedAfterWakingMillis);
        assertThat(outcome.failedWrites).as("A's writes that failed").isZero();
        assertThat(outcome.rejectedAfterWakingMillis).as("ms after Redis answered again at which B rejected a"
                + " customer A had created").allSatisfy(millis -> assertThat(millis).isLessThanOrEqualTo(250L));
        assertEveryCustomerIsFoundThroughB(b, outcome);
    }

    /**
     * A creates customers and B looks each up once A's write returned, from before Redis freezes for 2 s until A
     * has created 30 more after it answers again.
     */
    private Outcome createInAWhileBLooksUpAcrossAFreeze(ConfigurableApplicationContext a,
            ConfigurableApplicationContext b) throws Exception {
        CustomerService writer = a.getBean(CustomerService.class);
        CustomerRepository reader = b.getBean(CustomerRepository.class);
        BlockingQueue<Long> toLookUp = new LinkedBlockingQueue<>();
        Outcome outcome = new Outcome();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failed = new AtomicInteger();
        CompletableFuture<Long> woke = new CompletableFuture<>();
        ExecutorService traffic = Executors.newFixedThreadPool(2);
        try {
            Future<?> creating = traffic.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        Customer customer = writer.create("outage-" + i, () -> { });
                        outcome.created.add(customer.getId());
                        toLookUp.add(customer.getId());
                    }
                    catch (RuntimeException ex) {
                        failed.incrementAndGet();
                    }
                }
            });
            Future<?> lookingUp = traffic.submit(() -> {
                while (!stop.get() || !toLookUp.isEmpty()) {
                    Long id = toLookUp.poll(10, TimeUnit.MILLISECONDS);
                    if (id != null && !reader.existsById(id)) {
                        long at = System.nanoTime();
                        outcome.rejectedAt.add(at);
                    }
                }
                return null;
            });
            await("A creating customers").atMost(Duration.ofSeconds(10)).until(() -> outcome.created.size() > 20);
            OwnThread.run(() -> {
                redis.command("DEBUG", "SLEEP", "2");
                woke.complete(System.nanoTime());
            });
            long wokeAt = woke.get(10, TimeUnit.SECONDS);
            int atWaking = outcome.created.size();
            await("A creating customers after Redis answers again").atMost(Duration.ofSeconds(20))
                    .until(() -> outcome.created.size() > atWaking + 30);
            stop.set(true);
            creating.get(30, TimeUnit.SECONDS);
            lookingUp.get(30, TimeUnit.SECONDS);
            outcome.failedWrites = failed.get();
            for (long at : outcome.rejectedAt) {
                outcome.rejectedAfterWakingMillis.add(TimeUnit.NANOSECONDS.toMillis(at - wokeAt));
            }
            return outcome;
        }
        finally {
            stop.set(true);
            traffic.shutdownNow();
        }
    }

    /**
     * Once every instance trusts the filter again, B finds every customer A created, none rejected. A read that B's
     * check breaker refuses (it may open again on a slow call of a loaded machine) is no answer: the whole read is
     * made again, and its first complete answer must hold every customer.
     */
    private static void assertEveryCustomerIsFoundThroughB(ConfigurableApplicationContext b, Outcome outcome) {
        NamedBloomFilter customers = BeanFactoryAnnotationUtils.qualifiedBeanOfType(b.getBeanFactory(),
                NamedBloomFilter.class, "customers");
        await("B trusts the filter again").atMost(Duration.ofSeconds(20)).until(customers::trustedToReject);
        List<Long> missing = await("the shared filter read through B").atMost(Duration.ofSeconds(20))
                .pollDelay(Duration.ZERO).ignoreException(RedisUnavailableException.class)
                .until(() -> outcome.created.stream().filter(id -> !customers.backend().mightContain(id)).toList(),
                        anyAnswer -> true);
        assertThat(missing).as("customers A created missing from the shared filter").isEmpty();
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase, Map<String, String> overrides) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters.customers.backend", "redis");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        // Timeouts a loaded test machine meets on loopback; the breaker and the probe keep their defaults.
        properties.put("bloom-guard.redis.check-timeout", "200ms");
        properties.put("bloom-guard.redis.command-timeout", "300ms");
        properties.putAll(overrides);
        return apps.start(redis, initializeDatabase, properties);
    }

    /** What the two instances saw. */
    private static final class Outcome {

        private final Queue<Long> created = new ConcurrentLinkedQueue<>();
        private final Queue<Long> rejectedAt = new ConcurrentLinkedQueue<>();
        private final List<Long> rejectedAfterWakingMillis = new ArrayList<>();
        private int failedWrites;
    }
}
