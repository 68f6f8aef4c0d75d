package io.bloomguard.feed;

import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.TestApplication;
import io.bloomguard.testsupport.postgres.PostgresServerProcess;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Change feeds in a real application over a real PostgreSQL, another connection playing the service that writes
 * behind its back: the postgres feed (logical replication) finds inserted rows and takes deleted ones out of a
 * counting filter; a redis filter's consumer stopped mid-stream hands over with no row missed; and the jdbc feed finds
 * the row of a transaction that stayed open across several polls, stamped when it began.
 */
@Timeout(240)
@ExtendWith(RedisServerExtension.class)
class PostgresChangeFeedApplicationIT {

    private static final long ABSENT = 987_654_321L;
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private static PostgresServerProcess postgres;
    private static RedisServerProcess redis;

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    @BeforeAll
    static void servers(RedisServerProcess server) {
        redis = server;
        postgres = PostgresServerProcess.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @AfterEach
    void closeApplications() {
        applications.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void rowsAnotherServiceInsertsAreFoundThroughTheGuardedRepositoryOnceTheLagHasPassed() throws SQLException {
        String database = newDatabase();
        ConfigurableApplicationContext application = start(database, true, postgresFeed(database, "customers"));
        NamedBloomFilter customers = filter(application, "customers");
        assertThat(customers.feed().orElseThrow().lag()).as("started once its feed had caught up").isNotNull();
        await("the filter rejects").atMost(Duration.ofSeconds(10)).until(customers::trustedToReject);

        List<Long> inserted = new ArrayList<>();
        try (Connection otherService = connect(database)) {
            for (int batch = 0; batch < 5; batch++) {
                otherService.setAutoCommit(false);
                for (int row = 0; row < 40; row++) {
                    inserted.add(insert(otherService, "elsewhere-" + batch + "-" + row));
                }
                otherService.commit();
            }
        }

        CustomerRepository repository = application.getBean(CustomerRepository.class);
        await("every inserted row found through the guarded repository").atMost(Duration.ofSeconds(20))
                .until(() -> inserted.stream().filter(id -> repository.findById(id).isEmpty()).count() == 0);
        assertThat(repository.findById(ABSENT)).isEmpty();
        assertThat(customers.stats().rejected()).as("the guard still rejects").isPositive();
        FeedStatus feed = customers.feed().orElseThrow();
        assertThat(feed.counts().added()).isGreaterThanOrEqualTo(inserted.size());
        assertThat(feed.lag()).isLessThan(feed.maxLag());
    }

    @Test
    void aCountingFilterDropsTheKeysOfRowsAnotherServiceDeleted() throws SQLException {
        String database = newDatabase();
        ConfigurableApplicationContext application = start(database, true, postgresFeed(database, "removable"));
        NamedBloomFilter removable = filter(application, "removable");
        Instant built = Instant.now();
        // A delete is taken as proof only once it committed after the filter's build was seen, by a margin for the
        // database's clock (docs/change-feeds.md): let that margin pass first.
        await("past the clock margin").atMost(Duration.ofSeconds(10))
                .until(() -> Instant.now().isAfter(built.plus(FilterFeed.CLOCK_MARGIN).plusMillis(500)));

        try (Connection otherService = connect(database);
                PreparedStatement delete = otherService.prepareStatement("DELETE FROM customer WHERE id <= 50")) {
            assertThat(delete.executeUpdate()).isEqualTo(50);
        }

        FeedStatus feed = removable.feed().orElseThrow();
        await("the deletes applied").atMost(Duration.ofSeconds(20)).until(() -> feed.counts().removed() == 50);
        assertThat(LongStream.rangeClosed(51, 1000).filter(id -> !removable.mightContain(id)))
                .as("rows that remain, rejected").isEmpty();
        // 950 keys in a filter sized for 2,000 at 1%: an absent key passes with well under 0.1%, so more than 5 of
        // the 50 deleted ones still in has a probability below 1e-12, whatever the filter's random hash seed.
        assertThat(LongStream.rangeClosed(1, 50).filter(removable::mightContain).count())
                .as("deleted rows' keys still in").isLessThanOrEqualTo(5);
    }

    @Test
    void aRedisFilterWhoseConsumerStopsMidStreamMissesNoRowAndTheOtherInstanceTakesOver() throws Exception {
        String database = newDatabase();
        Map<String, String> feed = postgresFeed(database, "customers");
        feed.put("bloom-guard.filters.customers.backend", "redis");
        feed.put("bloom-guard.redis.key-prefix", database + ":");
        feed.put("spring.data.redis.host", "127.0.0.1");
        feed.put("spring.data.redis.port", Integer.toString(redis.port()));
        // Timeouts a loaded test machine meets on loopback, as the other two-instance tests set them.
        feed.put("bloom-guard.redis.check-timeout", "200ms");
        feed.put("bloom-guard.redis.command-timeout", "300ms");
        ConfigurableApplicationContext a = start(database, true, feed);
        ConfigurableApplicationContext b = start(database, false, feed);
        FeedStatus feedA = filter(a, "customers").feed().orElseThrow();
        FeedStatus feedB = filter(b, "customers").feed().orElseThrow();
        await("one consumer").atMost(Duration.ofSeconds(30)).until(() -> List.of(feedA.state(), feedB.state())
                .containsAll(List.of(FeedStatus.State.RUNNING, FeedStatus.State.FOLLOWING)));
        ConfigurableApplicationContext consumer = (feedA.state() == FeedStatus.State.RUNNING) ? a : b;
        ConfigurableApplicationContext survivor = (consumer == a) ? b : a;

        List<Long> inserted = new CopyOnWriteArrayList<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread otherService = new Thread(() -> {
            try (Connection connection = connect(database)) {
                for (int n = 0; writing.get(); n++) {
                    inserted.add(insert(connection, "stream-" + n));
                }
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        });
        otherService.start();
        await("rows flowing").atMost(Duration.ofSeconds(10)).until(() -> inserted.size() > 200);
        consumer.close(); // mid-stream
        int whenStopped = inserted.size();
        await("rows written while no instance consumed").atMost(Duration.ofSeconds(10))
                .until(() -> inserted.size() > whenStopped + 200);
        writing.set(false);
        otherService.join();

        NamedBloomFilter customers = filter(survivor, "customers");
        FeedStatus taken = customers.feed().orElseThrow();
        await("the other instance consumes").atMost(Duration.ofSeconds(30))
                .until(() -> taken.state() == FeedStatus.State.RUNNING);
        await("every row in the shared filter").atMost(Duration.ofSeconds(30))
                .ignoreException(RedisUnavailableException.class) // a check past its timeout is no answer: ask again
                .until(() -> inserted.stream().filter(id -> !customers.backend().mightContain(id)).count() == 0);
        CustomerRepository repository = survivor.getBean(CustomerRepository.class);
        assertThat(inserted.stream().filter(id -> repository.findById(id).isEmpty()).toList()).isEmpty();
    }

    @Test
    void theJdbcFeedFindsTheRowOfATransactionOpenAcrossSeveralPollsStampedWhenItBegan() throws SQLException {
        String database = newDatabase();
        Map<String, String> feed = new HashMap<>();
        feed.put("bloom-guard.filters.customers.feed.type", "jdbc");
        feed.put("bloom-guard.filters.customers.feed.jdbc.query",
                "select id, updated_at from customer where updated_at > :since");
        feed.put("bloom-guard.filters.customers.feed.jdbc.interval", "100ms");
        feed.put("bloom-guard.filters.customers.feed.jdbc.overlap", "20s");
        ConfigurableApplicationContext application = start(database, true, feed);
        NamedBloomFilter customers = filter(application, "customers");

        try (Connection longTransaction = connect(database); Connection others = connect(database)) {
            longTransaction.setAutoCommit(false);
            long stampedEarly = insert(longTransaction, "long-transaction"); // now(): this transaction's start
            List<Long> committedMeanwhile = new ArrayList<>();
            for (int row = 0; row < 5; row++) {
                committedMeanwhile.add(insert(others, "meanwhile-" + row));
                int seen = row + 1;
                await("polled past it").atMost(Duration.ofSeconds(10))
                        .until(() -> committedMeanwhile.stream().limit(seen).allMatch(customers::mightContain));
            }
            assertThat(customers.feed().orElseThrow().position()).as("the watermark moved on").isNotNull();
            longTransaction.commit();

            await("the long transaction's row found").atMost(Duration.ofSeconds(10))
                    .until(() -> application.getBean(CustomerRepository.class).findById(stampedEarly).isPresent());
        }
    }

    private static Map<String, String> postgresFeed(String database, String filter) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters." + filter + ".feed.type", "postgres");
        properties.put("bloom-guard.filters." + filter + ".feed.postgres.table", "public.customer");
        properties.put("bloom-guard.filters." + filter + ".feed.postgres.slot", "bloom_guard_" + database);
        properties.put("bloom-guard.filters." + filter + ".feed.max-lag", "10s");
        return properties;
    }

    private ConfigurableApplicationContext start(String database, boolean initialize, Map<String, String> properties) {
        Map<String, Object> all = new HashMap<>();
        all.put("spring.config.additional-location", "classpath:testapp.properties");
        all.put("spring.datasource.url", url(database));
        all.put("spring.datasource.username", postgres.username());
        all.put("spring.datasource.password", postgres.password());
        all.put("spring.sql.init.mode", initialize ? "always" : "never");
        all.put("spring.sql.init.schema-locations", "classpath:testapp-schema-postgres.sql");
        all.put("spring.sql.init.data-locations", "classpath:testapp-data-postgres.sql");
        all.putAll(properties);
        // As arguments: above testapp.properties, which default properties would not be.
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
                .run(all.entrySet().stream().map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                        .toArray(String[]::new));
        applications.add(context);
        return context;
    }

    private static String newDatabase() {
        String name = "feed_app_" + DATABASES.incrementAndGet();
        postgres.execute("CREATE DATABASE " + name);
        return name;
    }

    private static String url(String database) {
        return postgres.jdbcUrl().replaceFirst("/postgres$", "/" + database);
    }

    private static Connection connect(String database) throws SQLException {
        return java.sql.DriverManager.getConnection(url(database), postgres.username(), postgres.password());
    }

    private static long insert(Connection connection, String name) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO customer (name, tenant, code) VALUES (?, 't1', ?) RETURNING id")) {
            insert.setString(1, name);
            insert.setString(2, name);
            try (ResultSet id = insert.executeQuery()) {
                id.next();
                return id.getLong(1);
            }
        }
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }
}
