package io.bloomguard.redis;

import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisAcl;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An application whose Redis refuses bloom-guard's user, or cannot be reached when it starts: it does not start
 * (a refusal at startup), or it starts without taking traffic (readiness {@code REFUSING_TRAFFIC}) until the filter
 * has joined the shared filter, and the log says what to fix.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(RedisServerExtension.class)
class RedisAccessApplicationIT {

    private static final String USER = "app";

    private static final String PASSWORD = "app-secret";

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("access", "acl");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @Test
    void anApplicationWhoseRedisUserMayNotRunACommandDoesNotStartAndTheReportSaysWhatToGrant(CapturedOutput output) {
        grant(new RedisAcl(apps.keyPrefix()).rules().replace(" +evalsha", ""));
        assertThatThrownBy(() -> start(true, Map.of())).isInstanceOf(RedisAccessDeniedException.class);
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("the Redis user may not use EVALSHA")
                .contains("ACL SETUSER <user> " + new RedisAcl(apps.keyPrefix()).rules());
    }

    @Test
    void anApplicationThatCannotReachRedisAtStartupStartsButRefusesTrafficUntilItHas(CapturedOutput output) {
        redis.kill();
        ConfigurableApplicationContext app;
        try {
            app = start(false, Map.of());
            NamedBloomFilter customers = filter(app, "customers");
            assertThat(customers.state()).isEqualTo(FilterState.UNREACHABLE);
            assertThat(customers.stateReason()).contains("Redis unavailable");
            assertThat(readiness(app)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
            assertThat(output).contains("Filter 'customers' cannot reach Redis at startup")
                    .contains("spring.data.redis.host/port");
            assertThat(customers.approximateElementCount()).as("answered, not thrown").isZero();
        }
        finally {
            redis.restart();
        }
        await("ready once Redis answers").atMost(Duration.ofSeconds(20))
                .until(() -> filter(app, "customers").state() == FilterState.READY
                        && readiness(app) == ReadinessState.ACCEPTING_TRAFFIC);
    }

    @Test
    void aCommandRevokedWhileRunningHoldsReadinessAndFailsWritesUntilItIsGrantedAgain(CapturedOutput output) {
        grant(new RedisAcl(apps.keyPrefix()).rules());
        ConfigurableApplicationContext app = start(true, Map.of("bloom-guard.filters.codes.on-add-failure", "fail"));
        assertThat(readiness(app)).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
        NamedBloomFilter codes = filter(app, "codes");
        assertThat(codes.state()).isEqualTo(FilterState.READY);

        redis.command("ACL", "SETUSER", USER, "-hgetall"); // what every refresh runs
        await("refused").atMost(Duration.ofSeconds(10)).until(() -> codes.state() == FilterState.ACCESS_DENIED
                && readiness(app) == ReadinessState.REFUSING_TRAFFIC);
        assertThat(codes.stateReason()).contains("HGETALL").contains("+hgetall");
        assertThat(RedisAccessIT.errorLines(output, "Filter 'codes': the Redis user may not use HGETALL")).hasSize(1);

        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        Integer rowsBefore = jdbc.queryForObject("select count(*) from customer", Integer.class);
        assertThatThrownBy(() -> app.getBean(CustomerRepository.class).save(new Customer("refused", "tr", "r-1")))
                .as("under on-add-failure: fail, a write whose key Redis refuses fails")
                .isInstanceOf(RedisAccessDeniedException.class);
        assertThat(jdbc.queryForObject("select count(*) from customer", Integer.class)).as("rolled back")
                .isEqualTo(rowsBefore);

        redis.command("ACL", "SETUSER", USER, "+hgetall");
        await("ready again").atMost(Duration.ofSeconds(20)).until(() -> codes.state() == FilterState.READY
                && readiness(app) == ReadinessState.ACCEPTING_TRAFFIC);
    }

    /** Creates the application's Redis user with these ACL rules. */
    private static void grant(String rules) {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD));
        command.addAll(Arrays.asList(rules.split(" ")));
        redis.command(command.toArray(String[]::new));
    }

    /** @param asUser whether to log in as {@link #USER}, rather than as Redis's default user with no password */
    private ConfigurableApplicationContext start(boolean asUser, Map<String, String> overrides) {
        Map<String, String> properties = new HashMap<>();
        if (asUser) {
            properties.put("spring.data.redis.username", USER);
            properties.put("spring.data.redis.password", PASSWORD);
        }
        properties.put("bloom-guard.filters.customers.backend", "redis");
        properties.put("bloom-guard.filters.codes.backend", "redis");
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.put("bloom-guard.redis.breaker-window", "300ms");
        properties.put("bloom-guard.redis.check-timeout", "200ms");
        properties.putAll(overrides);
        return apps.start(redis, true, properties);
    }

    private static ReadinessState readiness(ConfigurableApplicationContext context) {
        return context.getBean(ApplicationAvailability.class).getReadinessState();
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }
}
