package io.bloomguard.redis;

import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the test application on one shared {@code customers} filter in Redis, each saving a customer every
 * 10 ms ({@code @BloomPut} keyed on the generated id) while a test fails Redis over under them, and what a user of
 * each sees: which saves failed and when, and which saved customers the guard of either instance rejects.
 *
 * <p>Usage: {@code try (SavingInstances saving = SavingInstances.start(apps, connection, Map.of())) {
 * saving.awaitSaved(100); ... fail over ...; saving.awaitEveryCustomerFound(bound); }}
 */
final class SavingInstances implements AutoCloseable {

    private static final Duration PACE = Duration.ofMillis(10);

    private final List<ConfigurableApplicationContext> instances;
    private final GuardedApplications apps;
    private final Queue<Long> saved = new ConcurrentLinkedQueue<>();
    private final Queue<FailedSave> failed = new ConcurrentLinkedQueue<>();
    private final AtomicInteger attempts = new AtomicInteger();
    private final ScheduledExecutorService writers = Executors.newScheduledThreadPool(2);

    private SavingInstances(GuardedApplications apps, List<ConfigurableApplicationContext> instances) {
        this.apps = apps;
        this.instances = instances;
    }

    /**
     * Starts two instances on the Redis {@code connection} names, each with a preload (the customers table) to rebuild
     * from, a 200 ms {@code refresh-interval} and {@code properties}, and has both save customers until {@link #stop()}.
     */
    static SavingInstances start(GuardedApplications apps, Map<String, String> connection,
            Map<String, String> properties) {
        Map<String, String> all = new HashMap<>();
        all.put("bloom-guard.filters.customers.backend", "redis");
        all.put("bloom-guard.redis.rebuild-grace", "0s");
        all.put("bloom-guard.redis.lock-ttl", "3s");
        all.put("bloom-guard.redis.refresh-interval", "200ms");
        // Timeouts a loaded test machine meets on loopback.
        all.put("bloom-guard.redis.check-timeout", "200ms");
        all.put("bloom-guard.redis.command-timeout", "300ms");
        all.putAll(properties);
        List<ConfigurableApplicationContext> started = new ArrayList<>();
        started.add(apps.start(connection, true, all));
        started.add(apps.start(connection, false, all));
        SavingInstances saving = new SavingInstances(apps, List.copyOf(started));
        for (int i = 0; i < started.size(); i++) {
            saving.saveEvery(PACE, started.get(i), "failover-" + "ab".charAt(i) + "-");
        }
        return saving;
    }

    private void saveEvery(Duration pace, ConfigurableApplicationContext instance, String namePrefix) {
        CustomerService customers = instance.getBean(CustomerService.class);
        AtomicInteger next = new AtomicInteger();
        writers.scheduleWithFixedDelay(() -> {
            attempts.incrementAndGet();
            try {
                Customer customer = customers.create(namePrefix + next.getAndIncrement(), () -> { });
                saved.add(customer.getId());
            }
            catch (RuntimeException ex) {
                failed.add(new FailedSave(System.nanoTime(), ex));
            }
        }, 0, pace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits until the two instances have saved {@code count} more customers. */
    void awaitSaved(int count) {
        int target = saved.size() + count;
        await(count + " more customers saved").atMost(Duration.ofSeconds(20)).until(() -> saved.size() >= target);
    }

    /** Stops saving, once the saves under way have returned. */
    void stop() throws InterruptedException {
        writers.shutdown();
        assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).as("saves under way returned").isTrue();
    }

    /** Ids of the customers saved so far: their saves returned. */
    List<Long> saved() {
        return List.copyOf(saved);
    }

    /** Saves that threw, when and what. */
    List<FailedSave> failed() {
        return List.copyOf(failed);
    }

    /**
     * Asserts that the failed saves rolled back: the table holds exactly the customers whose saves returned (names
     * are unique, so none was saved twice).
     */
    void assertFailedSavesRolledBack() {
        Integer rows = new JdbcTemplate(instances.get(0).getBean(DataSource.class))
            .queryForObject("SELECT COUNT(*) FROM customer WHERE name LIKE 'failover-%'", Integer.class);
        assertThat(rows).as("customers in the table, of " + attempts.get() + " saves tried, " + failed.size()
                + " failed").isEqualTo(saved.size());
    }

    /**
     * Customers saved that an instance's guard rejects now ({@code existsById} false without asking the database),
     * keyed by instance ("a", "b"); an instance that does not trust its filter yet (it passes calls through) counts
     * as rejecting nothing. A lookup that throws is not caught: no exception may reach a caller.
     */
    Map<String, List<Long>> rejectedNow() {
        List<Long> ids = saved();
        Map<String, List<Long>> rejected = new HashMap<>();
        for (int i = 0; i < instances.size(); i++) {
            CustomerRepository repository = instances.get(i).getBean(CustomerRepository.class);
            rejected.put(String.valueOf("ab".charAt(i)), ids.stream().filter(id -> !repository.existsById(id)).toList());
        }
        return rejected;
    }

    /**
     * Waits until both instances trust the shared filter and their guards find every customer saved, and returns
     * how long that took; fails if it takes longer than {@code bound}. Then checks the shared filter holds every
     * customer: found because it is in the filter, not because calls pass through.
     */
    Duration awaitEveryCustomerFound(Duration bound) {
        long from = System.nanoTime();
        await("every customer saved found by both instances' guards, both trusting the filter").atMost(bound)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> {
                Map<String, Boolean> trusted = trusted();
                Map<String, List<Long>> rejected = rejectedNow();
                assertThat(trusted).as(() -> "instances trusting the filter (a filter not trusted passes calls"
                        + " through); states: " + states())
                    .containsOnly(Map.entry("a", true), Map.entry("b", true));
                assertThat(rejected).as("customers saved that each instance's guard rejects, of " + saved.size())
                    .allSatisfy((instance, ids) -> assertThat(ids).as(instance + " rejects").isEmpty());
                assertThat(trusted()).as("still trusting the filter after the lookups").isEqualTo(trusted);
            });
        Duration took = Duration.ofNanos(System.nanoTime() - from);
        NamedBloomFilter customers = filter(instances.get(1));
        List<Long> missing = await("the shared filter read through b").atMost(Duration.ofSeconds(10))
            .pollDelay(Duration.ZERO)
            .ignoreException(RedisUnavailableException.class)
            .until(() -> saved().stream().filter(id -> !customers.backend().mightContain(id)).toList(),
                    anyAnswer -> true);
        assertThat(missing).as("customers saved missing from the shared filter").isEmpty();
        return took;
    }

    /** Whether every instance's filter is trusted to reject (it is not passing calls through). */
    boolean allTrusted() {
        return !trusted().containsValue(false);
    }

    /** Each instance's filter state and its reason. */
    private String states() {
        StringBuilder states = new StringBuilder();
        for (int i = 0; i < instances.size(); i++) {
            NamedBloomFilter filter = filter(instances.get(i));
            states.append("ab".charAt(i)).append(": ").append(filter.state()).append(" (").append(filter.stateReason())
                .append(") ");
        }
        return states.toString();
    }

    /** Whether each instance ("a", "b") trusts its filter to reject. */
    private Map<String, Boolean> trusted() {
        Map<String, Boolean> trusted = new HashMap<>();
        for (int i = 0; i < instances.size(); i++) {
            trusted.put(String.valueOf("ab".charAt(i)), filter(instances.get(i)).trustedToReject());
        }
        return trusted;
    }

    /** {@code bloomguard.redis.losses} (a function counter) summed over both instances. */
    double lossesCounted() {
        return instances.stream()
            .flatMap(instance -> instance.getBean(MeterRegistry.class).find("bloomguard.redis.losses").meters().stream())
            .flatMap(meter -> StreamSupport.stream(meter.measure().spliterator(), false))
            .mapToDouble(Measurement::getValue)
            .sum();
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext instance) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(instance.getBeanFactory(), NamedBloomFilter.class,
                "customers");
    }

    @Override
    public void close() {
        writers.shutdownNow();
        apps.close();
    }

    /** A save that threw, and when ({@link System#nanoTime()}). */
    record FailedSave(long atNanos, RuntimeException failure) {
    }
}
