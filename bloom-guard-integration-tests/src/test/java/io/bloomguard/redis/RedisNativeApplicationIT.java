package io.bloomguard.redis;

import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the test application whose filters are the server's own ({@code redis.kind: native}: {@code BF.*},
 * or {@code CF.*} with {@code type: cuckoo}), on a {@code redis-server} with the RedisBloom module (skipped without one:
 * set {@code REDISBLOOM_MODULE}), configured as a user configures them: one loads for both, both guard the repository,
 * a record saved through one is found through the other, and another client reads the filter with plain commands.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class RedisNativeApplicationIT {

    private static final long ABSENT = 987_654_321L;

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(@WithRedisBloom RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("native", "it");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bloom", "cuckoo"})
    void twoInstancesShareTheServersFilterAndItGuards(String type) {
        ConfigurableApplicationContext first = start(true, type);
        ConfigurableApplicationContext second = start(false, type);
        assertThat(first.getBean(FilterPreloader.class).results()).containsKey("customers");
        assertThat(second.getBean(FilterPreloader.class).results()).as("loaded once, by the first")
            .doesNotContainKey("customers");
        NamedBloomFilter customers = filter(second, "customers");
        assertThat(customers.state()).isEqualTo(FilterState.READY);

        Statistics statistics = statistics(second);
        long before = statistics.getPrepareStatementCount();
        assertThat(repository(second).findById(ABSENT)).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).as("an absent key rejected by the server's filter")
            .isEqualTo(before);
        assertThat(repository(second).findById(500L)).isPresent();

        Customer saved = repository(first).save(new Customer("native-" + UUID.randomUUID(), "t9", "native-code"));
        assertThat(repository(second).findByTenantAndCode("t9", "native-code"))
            .as("saved through the first, found through the second").get().extracting(Customer::getId)
            .isEqualTo(saved.getId());

        String command = type.equals("cuckoo") ? "CF.EXISTS" : "BF.EXISTS";
        String customersKey = liveKey("customers");
        assertThat(redis.command("TYPE", customersKey)).isEqualTo(type.equals("cuckoo") ? "MBbloomCF" : "MBbloom--");
        assertThat(redis.command(command, customersKey, "500")).as("read by another client").isEqualTo("1");
        assertThat(redis.command(command, customersKey, Long.toString(ABSENT))).isEqualTo("0");
        assertThat(redis.command(command, liveKey("codes"), "t9:native-code")).isEqualTo("1");
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase, String type) {
        Map<String, String> properties = new HashMap<>();
        for (String name : new String[] {"customers", "codes"}) {
            properties.put("bloom-guard.filters." + name + ".backend", "redis");
            properties.put("bloom-guard.filters." + name + ".redis.kind", "native");
            properties.put("bloom-guard.filters." + name + ".type", type);
        }
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.check-timeout", "1s");
        return apps.start(redis, initializeDatabase, properties);
    }

    /** The live filter's key, as a user finds it with {@code redis-cli}. */
    private String liveKey(String filter) {
        String meta = apps.keyPrefix() + "{" + filter + "}:meta";
        return meta.replace(":meta", ":bits:" + redis.command("HGET", meta, "live"));
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
}
