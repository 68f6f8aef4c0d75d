package io.bloomguard.feed;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.OtherService;
import io.bloomguard.testapp.TestApplication;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A filter that follows its table with a jdbc feed, in a real application over H2: rows another service inserts
 * behind the application's back are found through the guarded repository once the feed has caught up, and while the
 * feed is down past its max-lag the filter lets lookups through (when-behind: pass) or keeps rejecting (keep), and
 * says so in its health.
 */
@Timeout(60)
class ChangeFeedGuardTest {

    private static final long ABSENT = 987_654_321L;

    @Test
    void aRowInsertedByAnotherServiceIsFoundThroughTheGuardedRepositoryOnceTheFeedCaughtUp() {
        try (ConfigurableApplicationContext context = run()) {
            CustomerRepository customers = context.getBean(CustomerRepository.class);
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("customers");
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            new BloomFilterMetrics(context.getBean(BloomFilterRegistry.class)).bindTo(meters);
            assertThat(filter.feed().orElseThrow().lag()).as("started once the feed had caught up").isNotNull();
            await("the filter rejects").until(filter::trustedToReject);

            long id = otherService(context).insertCustomer("elsewhere-1");

            await("found through the guarded repository").atMost(Duration.ofSeconds(10))
                    .until(() -> customers.findById(id).isPresent());
            assertThat(customers.findById(ABSENT)).isEmpty();
            assertThat(filter.stats().rejected()).as("the guard still rejects absent keys").isPositive();
            FeedStatus feed = filter.feed().orElseThrow();
            assertThat(feed.state()).isEqualTo(FeedStatus.State.RUNNING);
            // The first poll reads back its overlap, so rows the preload read may be put again: harmless.
            assertThat(feed.counts().added()).isPositive();
            Timer lag = meters.get("bloomguard.feed.lag").tag("filter", "customers").timer();
            assertThat(lag.count()).as("changes applied since the meters were bound").isPositive();
            assertThat(new BloomFiltersEndpoint(context.getBean(BloomFilterRegistry.class)).filter("customers")
                    .feed()).satisfies(descriptor -> {
                        assertThat(descriptor.added()).isEqualTo(feed.counts().added());
                        assertThat(descriptor.behind()).isFalse();
                        assertThat(descriptor.description()).startsWith("jdbc polling every 0.1s");
                    });
        }
    }

    @Test
    void whileTheFeedIsDownPastMaxLagLookupsPassThroughAndHealthSaysSoUntilItCatchesUp() {
        try (ConfigurableApplicationContext context = run()) {
            CustomerRepository customers = context.getBean(CustomerRepository.class);
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("customers");
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            await("the filter rejects").until(filter::trustedToReject);

            jdbc.execute("drop view customer_changes"); // the feed's query fails; the application's do not
            long id = otherService(context).insertCustomer("while-down");

            await("behind past max-lag").atMost(Duration.ofSeconds(10)).until(() -> !filter.trustedToReject());
            long rejected = filter.stats().rejected();
            assertThat(customers.findById(id)).as("a row written meanwhile is found").isPresent();
            assertThat(customers.findById(ABSENT)).isEmpty();
            assertThat(filter.stats().rejected()).as("nothing rejected while behind").isEqualTo(rejected);
            Health health = new BloomFilterHealthIndicator(filter).health();
            assertThat(health.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(health.getDetails().get("reasons")).asString().contains("change feed")
                    .contains("when-behind: pass");
            assertThat(filter.feed().orElseThrow().failure()).isNotNull();

            jdbc.execute(VIEW);
            await("caught up").atMost(Duration.ofSeconds(10)).until(filter::trustedToReject);
            assertThat(filter.mightContain(id)).as("the row written while it was down").isTrue();
            assertThat(new BloomFilterHealthIndicator(filter).health().getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void withWhenBehindKeepTheFilterKeepsRejectingWhileTheFeedIsDown() {
        try (ConfigurableApplicationContext context = run("--bloom-guard.filters.customers.feed.when-behind=keep")) {
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("customers");
            await("the filter rejects").until(filter::trustedToReject);

            context.getBean(JdbcTemplate.class).execute("drop view customer_changes");

            await("behind past max-lag").atMost(Duration.ofSeconds(10))
                    .until(() -> filter.feed().orElseThrow().behind());
            assertThat(filter.trustedToReject()).isTrue();
            assertThat(new BloomFilterHealthIndicator(filter).health().getDetails().get("reasons")).asString()
                    .contains("when-behind: keep");
        }
    }

    @Test
    void rebuildsWhileAnotherServiceInsertsLoseNoneOfItsRows() throws Exception {
        try (ConfigurableApplicationContext context = run()) {
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("customers");
            await("the filter rejects").until(filter::trustedToReject);
            List<Long> inserted = new CopyOnWriteArrayList<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread otherService = new Thread(() -> {
                for (int n = 0; writing.get(); n++) {
                    inserted.add(otherService(context).insertCustomer("during-rebuild-" + n));
                }
            });
            otherService.start();
            for (int rebuild = 0; rebuild < 3; rebuild++) {
                filter.rebuild();
            }
            writing.set(false);
            otherService.join();

            await("caught up").atMost(Duration.ofSeconds(10)).until(() -> filter.feed().orElseThrow().lag() != null
                    && filter.feed().orElseThrow().lastChange() != null && filter.trustedToReject());
            await("every row the other service inserted is in").atMost(Duration.ofSeconds(10))
                    .until(() -> inserted.stream().filter(id -> !filter.mightContain(id)).toList(), List::isEmpty);
            assertThat(inserted).hasSizeGreaterThan(10);
        }
    }

    private static final String VIEW = "create view customer_changes as select id, updated_at from customer";

    private static OtherService otherService(ConfigurableApplicationContext context) {
        return new OtherService(context.getBean(DataSource.class));
    }

    private static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(TestApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        ConfigurableApplicationContext context = application.run(Stream.concat(Stream.of(
                "--spring.config.additional-location=classpath:testapp.properties",
                "--spring.sql.init.data-locations=classpath:testapp-data.sql,classpath:feed-view.sql",
                "--bloom-guard.filters.customers.feed.type=jdbc",
                "--bloom-guard.filters.customers.feed.jdbc.query=select id, updated_at from customer_changes"
                        + " where updated_at > :since",
                "--bloom-guard.filters.customers.feed.jdbc.interval=100ms",
                "--bloom-guard.filters.customers.feed.jdbc.overlap=5s",
                "--bloom-guard.filters.customers.feed.max-lag=1s"), Stream.of(args)).toArray(String[]::new));
        return context;
    }
}
