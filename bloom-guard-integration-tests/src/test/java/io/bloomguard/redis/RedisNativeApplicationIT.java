package io.bloomguard.redis;

import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.redis.LoopbackPorts;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /**
     * {@code redis.kind: auto} on a server with the module makes the server's filter, and a second instance with
     * {@code auto} follows it; on a server without the module, it makes bloom-guard's bitmap.
     */
    @Test
    void autoMakesTheServersFilterWhereTheServerHasItAndTheBitmapWhereNot(RedisServerProcess plain) {
        ConfigurableApplicationContext first = start(redis, true, "bloom", "auto");
        ConfigurableApplicationContext second = start(redis, false, "bloom", "auto");
        assertThat(redis.command("TYPE", liveKey("customers"))).isEqualTo("MBbloom--");
        assertGuards(first, second);

        GuardedApplications plainApps = new GuardedApplications("native-plain", "it");
        try {
            Map<String, String> properties = properties("bloom", "auto");
            ConfigurableApplicationContext withoutModule = plainApps.start(plain, true, properties);
            String meta = plainApps.keyPrefix() + "{customers}:meta";
            assertThat(plain.command("HGET", meta, "live")).as("bloom-guard's bitmap").doesNotContain(".bf");
            assertThat(plain.command("TYPE", meta.replace(":meta", ":bits:" + plain.command("HGET", meta, "live"))
                    .replace(".s*", ".s0"))).isNotEqualTo("none");
            assertGuards(withoutModule, withoutModule);
        }
        finally {
            plainApps.close();
        }
    }

    /**
     * A filter stored as bloom-guard's bitmap stays one for an instance with {@code redis.kind: auto}, though the
     * server has the module: it joins the stored filter (ready at once, no second load) instead of making another that
     * the first instance would read as another shape.
     */
    @Test
    void autoFollowsTheKindTheFilterIsStoredAs() {
        ConfigurableApplicationContext first = start(redis, true, "bloom", "bitmap");
        ConfigurableApplicationContext second = start(redis, false, "bloom", "auto");
        assertThat(second.getBean(FilterPreloader.class).results()).as("joined, not loaded again")
            .doesNotContainKey("customers");
        assertThat(filter(second, "customers").state()).isEqualTo(FilterState.READY);
        assertThat(redis.command("HGET", apps.keyPrefix() + "{customers}:meta", "live")).doesNotContain(".bf");
        assertGuards(first, second);
    }

    /** An instance with {@code auto} that cannot reach Redis does not start, and says what to set instead. */
    @Test
    void autoWithoutRedisAtStartupRefusesToStartSayingWhatToSet() {
        Map<String, String> unreachable = Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port",
                Integer.toString(LoopbackPorts.free(false)));
        assertThatThrownBy(() -> apps.start(unreachable, true, properties("bloom", "auto")))
            .rootCause().hasMessageContaining("bloom-guard.filters.customers.redis.kind")
            .hasMessageContaining("native or bitmap");
    }

    /**
     * {@code redis.key}: a filter another program created and fills under its own key name, guarded by two instances.
     * A code the owner added is found without ever being read from the database by bloom-guard, an absent one is
     * rejected, and a customer saved through one instance is found through the other (its key went into the owner's
     * filter).
     */
    @Test
    void twoInstancesGuardAFilterAnotherProgramOwns() {
        String owned = "legacy:codes:" + UUID.randomUUID();
        redis.command("BF.RESERVE", owned, "0.001", "10000");
        redis.command("BF.ADD", owned, "t7:owner-added");
        Map<String, String> properties = properties("bloom", "native");
        properties.put("bloom-guard.filters.codes.redis.key", owned);
        ConfigurableApplicationContext first = apps.start(redis, true, properties);
        ConfigurableApplicationContext second = apps.start(redis, false, properties);
        assertThat(filter(second, "codes").state()).isEqualTo(FilterState.READY);

        Statistics statistics = statistics(second);
        long before = statistics.getPrepareStatementCount();
        assertThat(repository(second).findByTenantAndCode("t7", "never-added")).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).as("an absent code rejected").isEqualTo(before);
        assertThat(repository(second).findByTenantAndCode("t7", "owner-added")).as("let through: the owner added it")
            .isEmpty();
        assertThat(statistics.getPrepareStatementCount()).isGreaterThan(before);

        Customer saved = repository(first).save(new Customer("owned-" + UUID.randomUUID().toString().substring(0, 8),
                "t7", "saved-here"));
        assertThat(redis.command("BF.EXISTS", owned, "t7:saved-here")).as("in the owner's filter").isEqualTo("1");
        assertThat(repository(second).findByTenantAndCode("t7", "saved-here")).get().extracting(Customer::getId)
            .isEqualTo(saved.getId());
    }

    /** An absent key rejected by the second instance, a present one found; saved through the first, found by both. */
    private void assertGuards(ConfigurableApplicationContext first, ConfigurableApplicationContext second) {
        Statistics statistics = statistics(second);
        long before = statistics.getPrepareStatementCount();
        assertThat(repository(second).findById(ABSENT)).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).as("an absent key rejected").isEqualTo(before);
        assertThat(repository(second).findById(500L)).isPresent();
        String code = "auto-" + UUID.randomUUID().toString().substring(0, 18);
        Customer saved = repository(first).save(new Customer(code, "t8", code));
        assertThat(repository(second).findByTenantAndCode("t8", code)).get().extracting(Customer::getId)
            .isEqualTo(saved.getId());
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase, String type) {
        return start(redis, initializeDatabase, type, "native");
    }

    private ConfigurableApplicationContext start(RedisServerProcess server, boolean initializeDatabase, String type,
            String kind) {
        return apps.start(server, initializeDatabase, properties(type, kind));
    }

    private static Map<String, String> properties(String type, String kind) {
        Map<String, String> properties = new HashMap<>();
        for (String name : new String[] {"customers", "codes"}) {
            properties.put("bloom-guard.filters." + name + ".backend", "redis");
            properties.put("bloom-guard.filters." + name + ".redis.kind", kind);
            properties.put("bloom-guard.filters." + name + ".type", type);
        }
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.check-timeout", "1s");
        return properties;
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
