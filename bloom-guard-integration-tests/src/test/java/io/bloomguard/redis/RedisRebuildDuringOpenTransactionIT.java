package io.bloomguard.redis;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A transaction open on one instance across a rebuild of a shared filter, run by the other instance or set off by the
 * import itself: the keys it put before the rebuild began reached only the generation the rebuild replaces, and the
 * rebuild's read of the key source could not see its rows. Once it commits, every row it wrote is found through the
 * guarded repository on both instances.
 */
@ExtendWith(RedisServerExtension.class)
@Timeout(180)
class RedisRebuildDuringOpenTransactionIT {

    private GuardedApplications apps;

    @BeforeEach
    void applications() {
        apps = new GuardedApplications("open-tx", "open-tx");
    }

    @AfterEach
    void close() {
        apps.close();
    }

    @Test
    void rowsOfATransactionOpenAcrossAnotherInstancesRebuildAreFoundOnBothOnceItCommits(RedisServerProcess redis) {
        ConfigurableApplicationContext writer = start(redis, true);
        ConfigurableApplicationContext rebuilder = start(redis, false);
        String tenant = tenant("open");
        List<String> written = IntStream.range(0, 300).mapToObj(i -> "code-" + i).toList();

        transactions(writer).executeWithoutResult(status -> {
            written.forEach(code -> customers(writer).save(new Customer(tenant + code, tenant, code)));
            OwnThread.run(() -> codes(rebuilder).rebuild()).join();
        });

        assertThat(rejected(writer, tenant, written)).as("rows rejected on the writing instance").isEmpty();
        assertThat(rejected(rebuilder, tenant, written)).as("rows rejected on the rebuilding instance").isEmpty();
    }

    @Test
    void rowsOfAnImportThatGrowsTheFilterFromInsideItsTransactionAreFoundOnBothOnceItCommits(RedisServerProcess redis) {
        ConfigurableApplicationContext writer = start(redis, true);
        ConfigurableApplicationContext other = start(redis, false);
        String tenant = tenant("import");
        List<String> written = IntStream.range(0, 2_000).mapToObj(i -> "code-" + i).toList();

        transactions(writer).executeWithoutResult(status -> {
            written.forEach(code -> customers(writer).save(new Customer(tenant + code, tenant, code)));
            await("a growth rebuild begun and swapped in").atMost(Duration.ofSeconds(60))
                    .until(() -> codes(writer).capacity() > 500 && !codes(writer).growing());
        });

        assertThat(rejected(writer, tenant, written)).as("rows rejected on the writing instance").isEmpty();
        await("the other instance reads the grown generation").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(codes(other).capacity()).isGreaterThan(500));
        assertThat(rejected(other, tenant, written)).as("rows rejected on the other instance").isEmpty();
    }

    private ConfigurableApplicationContext start(RedisServerProcess redis, boolean initializeDatabase) {
        return apps.start(redis, initializeDatabase, Map.of(
                "bloom-guard.filters.codes.backend", "redis",
                "bloom-guard.filters.codes.expected-size", "500",
                // Nothing held back: the swap itself must keep the rows (a table of many rows would not be held).
                "bloom-guard.filters.codes.rebuild.hold-below", "0",
                "bloom-guard.redis.rebuild-grace", "0s",
                "bloom-guard.redis.refresh-interval", "100ms"));
    }

    private static String tenant(String stem) {
        return stem + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static List<String> rejected(ConfigurableApplicationContext instance, String tenant, List<String> codes) {
        CustomerRepository customers = customers(instance);
        return codes.stream().filter(code -> customers.findByTenantAndCode(tenant, code).isEmpty()).toList();
    }

    private static CustomerRepository customers(ConfigurableApplicationContext instance) {
        return instance.getBean(CustomerRepository.class);
    }

    private static TransactionTemplate transactions(ConfigurableApplicationContext instance) {
        return new TransactionTemplate(instance.getBean(PlatformTransactionManager.class));
    }

    private static NamedBloomFilter codes(ConfigurableApplicationContext instance) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(instance.getBeanFactory(), NamedBloomFilter.class,
                "codes");
    }
}
