package io.bloomguard.redis;

import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application wired to Jedis ({@code spring.data.redis.client-type=jedis}) shares its {@code redis} filters
 * with one wired to Lettuce: the backend reaches Redis through Spring Data Redis's connection API there.
 */
@Timeout(120)
class JedisGuardedApplicationIT {

    private static final long ABSENT = 987_654_321L;

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
    void aJedisInstanceAndALettuceInstanceGuardWithTheSameFilter() {
        try (GuardedApplications apps = new GuardedApplications("jedis", "jedis")) {
            ConfigurableApplicationContext jedis = apps.start(redis, true, properties("jedis"));
            ConfigurableApplicationContext lettuce = apps.start(redis, false, properties("lettuce"));
            assertThat(jedis.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
            assertThat(filter(jedis, "customers").state()).isEqualTo(FilterState.READY);

            Statistics statistics = statistics(jedis);
            long before = statistics.getPrepareStatementCount();
            assertThat(repository(jedis).findById(ABSENT)).isEmpty();
            assertThat(statistics.getPrepareStatementCount()).as("absent key answered by the shared filter")
                    .isEqualTo(before);
            assertThat(repository(jedis).findById(500L)).as("a preloaded row").isPresent();

            String jedisCode = "j-" + UUID.randomUUID();
            repository(jedis).save(new Customer("through jedis", "t1", jedisCode));
            assertThat(repository(lettuce).findByTenantAndCode("t1", jedisCode))
                    .as("saved on the Jedis instance, found on the Lettuce one").isPresent();
            String lettuceCode = "l-" + UUID.randomUUID();
            repository(lettuce).save(new Customer("through lettuce", "t1", lettuceCode));
            assertThat(repository(jedis).findByTenantAndCode("t1", lettuceCode))
                    .as("saved on the Lettuce instance, found on the Jedis one").isPresent();
        }
    }

    @Test
    void aJedisInstanceRebuildsTheSharedFilter() {
        try (GuardedApplications apps = new GuardedApplications("jedis-rebuild", "jedis")) {
            ConfigurableApplicationContext jedis = apps.start(redis, true, properties("jedis"));
            NamedBloomFilter customers = filter(jedis, "customers");
            long rows = jedis.getBean(JdbcTemplate.class).queryForObject("SELECT count(*) FROM customer", Long.class);
            assertThat(customers.rebuild()).as("keys read by the rebuild").isEqualTo(rows);
            assertThat(customers.state()).isEqualTo(FilterState.READY);
            assertThat(repository(jedis).findById(500L)).as("a row read back from the rebuilt filter").isPresent();
            assertThat(customers.mightContain(ABSENT)).isFalse();
        }
    }

    private static Map<String, String> properties(String client) {
        return Map.of("spring.data.redis.client-type", client,
                "bloom-guard.filters.customers.backend", "redis",
                "bloom-guard.filters.codes.backend", "redis",
                "bloom-guard.redis.rebuild-grace", "0s",
                "bloom-guard.redis.refresh-interval", "100ms");
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
