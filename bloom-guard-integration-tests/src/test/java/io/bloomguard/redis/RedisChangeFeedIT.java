package io.bloomguard.redis;

import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.OtherService;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A redis filter followed by a jdbc feed, on two instances: one consumes the feed while the other follows, rows
 * another service inserts are found through either instance, and when the consumer stops the other takes over
 * from the position it saved in Redis, missing no row inserted in between.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class RedisChangeFeedIT {

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("feed", "it");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @Test
    void oneInstanceConsumesTheFeedAndTheOtherTakesOverFromItsPositionWhenItStops() {
        ConfigurableApplicationContext a = start(true);
        ConfigurableApplicationContext b = start(false);
        FeedStatus feedA = filter(a).feed().orElseThrow();
        FeedStatus feedB = filter(b).feed().orElseThrow();
        await("one consumer, one follower").atMost(Duration.ofSeconds(20)).until(() -> List.of(feedA.state(),
                feedB.state()).containsAll(List.of(FeedStatus.State.RUNNING, FeedStatus.State.FOLLOWING)));
        ConfigurableApplicationContext consumer = (feedA.state() == FeedStatus.State.RUNNING) ? a : b;
        ConfigurableApplicationContext follower = (consumer == a) ? b : a;
        FeedStatus following = filter(follower).feed().orElseThrow();
        await("both trust the filter").atMost(Duration.ofSeconds(20))
                .until(() -> filter(a).trustedToReject() && filter(b).trustedToReject());

        long first = new OtherService(a.getBean(DataSource.class)).insertCustomer("feed-first");
        await("found through the follower").atMost(Duration.ofSeconds(10))
                .until(() -> follower.getBean(CustomerRepository.class).findById(first).isPresent());
        // Read from Redis every 2 s, as the consumer saved it after its last poll: within max-lag, however loaded.
        assertThat(following.lag()).as("the follower reads how current the consumer keeps the filter").isNotNull()
                .isLessThan(following.maxLag());

        consumer.close();
        long meanwhile = new OtherService(follower.getBean(DataSource.class)).insertCustomer("feed-meanwhile");
        await("the follower consumes now").atMost(Duration.ofSeconds(20))
                .until(() -> following.state() == FeedStatus.State.RUNNING);

        await("the row inserted while no instance consumed is found").atMost(Duration.ofSeconds(10))
                .until(() -> follower.getBean(CustomerRepository.class).findById(meanwhile).isPresent());
        await("the first row still in").atMost(Duration.ofSeconds(10))
                .ignoreException(RedisUnavailableException.class) // a check past its timeout is no answer
                .until(() -> filter(follower).backend().mightContain(first));
        assertThat(filter(follower).trustedToReject()).isTrue();
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters.customers.backend", "redis");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        // Timeouts a loaded test machine meets on loopback, as the other two-instance tests set them.
        properties.put("bloom-guard.redis.check-timeout", "200ms");
        properties.put("bloom-guard.redis.command-timeout", "300ms");
        properties.put("spring.sql.init.data-locations", "classpath:testapp-data.sql,classpath:feed-view.sql");
        properties.put("bloom-guard.filters.customers.feed.type", "jdbc");
        properties.put("bloom-guard.filters.customers.feed.jdbc.query",
                "select id, updated_at from customer_changes where updated_at > :since");
        properties.put("bloom-guard.filters.customers.feed.jdbc.interval", "100ms");
        properties.put("bloom-guard.filters.customers.feed.jdbc.overlap", "5s");
        properties.put("bloom-guard.filters.customers.feed.max-lag", "15s");
        return apps.start(redis, initializeDatabase, properties);
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class,
                "customers");
    }

}
