package io.bloomguard.redis;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.Lookups;
import io.bloomguard.testapp.RecordedStatements;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Flux;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-key lookups on {@code redis} filters shared by two instances of the test application: one round trip to
 * Redis for the whole batch, one query with only the ids that might exist, and a row committed on one instance found
 * in a batch on the other. The customers filter holds the 1,000 preloaded customers, sized for 10,000 at 1 %: about
 * 1e-8 false positives per absent id (see {@code PrunedRepositoryLookupTest}); the tests compare with the filter's
 * own answers.
 */
@ExtendWith(RedisServerExtension.class)
class RedisPrunedLookupIT {

    private static final List<Long> EXISTING = LongStream.rangeClosed(1, 10).map(i -> i * 89).boxed().toList();

    private GuardedApplications apps;

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("pruned", "pruned");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @Test
    void aThousandIdsAreCheckedInOneRoundTripAndQueriedWithTheTenThatExist(RedisServerProcess redis) {
        start(redis, true);
        ConfigurableApplicationContext second = start(redis, false);
        List<Long> asked = new ArrayList<>();
        IntStream.range(0, 1000).forEach(i -> asked.add((i % 100 == 0) ? EXISTING.get(i / 100) : 8_000_000L + i));
        List<Long> mightExist = mightExist(filter(second), asked);
        assertThat(mightExist).containsAll(EXISTING).hasSizeLessThanOrEqualTo(EXISTING.size() + 1);

        AtomicReference<List<Customer>> found = new AtomicReference<>();
        try (RedisMonitor monitor = RedisMonitor.on(redis)) {
            monitor.commandsSinceLastCall();
            List<String> statements = RecordedStatements.during(
                    () -> found.set(second.getBean(CustomerRepository.class).findAllById(asked)));
            Map<String, Long> commands = monitor.commandsSinceLastCall();

            assertThat(checksSent(commands)).as("checks sent: %s", commands).isEqualTo(1);
            assertThat(statements).as("one query").hasSize(1);
            assertThat(RecordedStatements.boundParameters(statements.get(0))).isEqualTo(mightExist.size());
        }
        assertThat(found.get()).extracting(Customer::getId).containsExactlyInAnyOrderElementsOf(EXISTING);
    }

    @Test
    void aRowCommittedOnOneInstanceIsFoundInABatchOnTheOther(RedisServerProcess redis) {
        ConfigurableApplicationContext first = start(redis, true);
        ConfigurableApplicationContext second = start(redis, false);
        Customer created = first.getBean(CustomerService.class).create("batch-" + System.nanoTime(), () -> { });

        assertThat(second.getBean(CustomerRepository.class).findAllById(List.of(8_100_001L, created.getId(), 89L)))
                .extracting(Customer::getId).containsExactlyInAnyOrder(created.getId(), 89L);
        assertThat(second.getBean(Lookups.class).namesOfAllReactively(List.of(created.getId())).collectList().block())
                .containsExactly(created.getName());
    }

    /**
     * A reactive batch: nothing goes to Redis when the method is called; at subscription one round trip, and the
     * method, called then with the ids that might exist, runs off the Redis client's threads.
     */
    @Test
    void aReactiveBatchIsCheckedWhenSubscribedToInOneRoundTrip(RedisServerProcess redis) {
        ConfigurableApplicationContext app = start(redis, true);
        Lookups lookups = app.getBean(Lookups.class);
        List<Long> asked = List.of(8_200_001L, 89L, 8_200_002L, 178L);
        assertThat(mightExist(filter(app), asked)).containsExactly(89L, 178L);
        try (RedisMonitor monitor = RedisMonitor.on(redis)) {
            monitor.commandsSinceLastCall();
            Flux<String> names = lookups.namesOfAllReactively(asked);
            Map<String, Long> atTheCall = monitor.commandsSinceLastCall();
            assertThat(checksSent(atTheCall)).as("checks sent when the method was called: %s", atTheCall).isZero();

            assertThat(names.collectList().block()).containsExactly("customer-89", "customer-178");
            Map<String, Long> commands = monitor.commandsSinceLastCall();
            assertThat(checksSent(commands)).as("checks sent: %s", commands).isEqualTo(1);
        }
        assertThat(lookups.reactiveQueryThreads()).as("queried for the two that might exist").hasSize(2)
                .noneMatch(thread -> thread.startsWith("lettuce"));
        assertThat(lookups.namesOfAllReactively(List.of(8_200_001L)).collectList().block()).isEmpty();
        assertThat(lookups.reactiveQueryThreads()).as("none left: the method did not run").hasSize(2);
    }

    /**
     * The commands that read a filter's bits: a script per shard for a batch, a {@code GETRANGE} for one key; the
     * instances' background refreshes send others.
     */
    private static long checksSent(Map<String, Long> commands) {
        return commands.getOrDefault("evalsha", 0L) + commands.getOrDefault("eval", 0L)
                + commands.getOrDefault("getrange", 0L) + commands.getOrDefault("getbit", 0L);
    }

    private ConfigurableApplicationContext start(RedisServerProcess redis, boolean initializeDatabase) {
        return apps.start(redis, initializeDatabase, Map.of("bloom-guard.filters.customers.backend", "redis"));
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class,
                "customers");
    }

    private static List<Long> mightExist(NamedBloomFilter filter, List<Long> ids) {
        boolean[] answers = filter.mightContainAll(ids);
        return IntStream.range(0, ids.size()).filter(i -> answers[i]).mapToObj(ids::get).toList();
    }
}
