package io.bloomguard.autoconfigure;

import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisFilterBackend;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bloom-guard.redis.wait-for-replicas} and {@code wait-timeout}: bound, checked, and refused at startup where
 * the {@code WAIT} could not cover the adds (a pooled client, a cluster). The factories here are never connected:
 * startup refuses on their type alone.
 */
class WaitForReplicasSettingsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class));

    @Test
    void waitingForReplicasIsOffByDefaultAndBoundWhenSet() {
        RedisBackendSettings defaults = RedisSettingsResolver.resolve(new RedisBackendProperties());
        assertThat(defaults.waitForReplicas()).isZero();
        assertThat(defaults.waitTimeout()).isEqualTo(Duration.ofMillis(100));
        runner.withPropertyValues("bloom-guard.redis.wait-for-replicas=2", "bloom-guard.redis.wait-timeout=250ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisBackendSettings settings = context.getBean(RedisFilterBackend.class).settings();
                    assertThat(settings.waitForReplicas()).isEqualTo(2);
                    assertThat(settings.waitTimeout()).isEqualTo(Duration.ofMillis(250));
                });
    }

    @Test
    void badWaitSettingsFailStartupSayingWhatToSet() {
        assertInvalid(List.of("bloom-guard.redis.wait-for-replicas=-1"), "bloom-guard.redis.wait-for-replicas", "-1",
                "0 (wait for none) or more");
        assertInvalid(List.of("bloom-guard.redis.wait-for-replicas=1", "bloom-guard.redis.wait-timeout=0ms"),
                "bloom-guard.redis.wait-timeout", "PT0S", "a duration of 1ms or more while wait-for-replicas is 1");
        assertInvalid(List.of("bloom-guard.redis.wait-for-replicas=1", "bloom-guard.redis.wait-timeout=-5ms"),
                "bloom-guard.redis.wait-timeout", "PT-0.005S", "a duration of 1ms or more");
        assertInvalid(List.of("bloom-guard.redis.wait-for-replicas=1", "bloom-guard.redis.wait-timeout=2s"),
                "bloom-guard.redis.wait-timeout", "PT2S", "below bloom-guard.redis.command-timeout");
    }

    @Test
    void aTimeoutWithoutACountIsNotChecked() {
        RedisBackendProperties redis = new RedisBackendProperties();
        redis.setWaitTimeout(Duration.ZERO);
        assertThat(RedisSettingsResolver.resolve(redis).waitForReplicas()).isZero();
    }

    @Test
    void aPooledClientCannotWaitForReplicas() {
        RedisConnectionFactory pooled = (RedisConnectionFactory) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {RedisConnectionFactory.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> "a pooled client's factory";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException("never connected in this test");
                });
        runner.withBean(RedisConnectionFactory.class, () -> pooled)
                .withPropertyValues("bloom-guard.filters.users.backend=redis", "bloom-guard.filters.users.puts-only=true",
                        "bloom-guard.redis.wait-for-replicas=1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis).as("%s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("Invalid value '1' for property bloom-guard.redis.wait-for-replicas")
                            .contains("takes each command's connection from a pool").contains("use Lettuce");
                });
    }

    @Test
    void aClusterCannotWaitForReplicas() {
        runner.withBean(RedisConnectionFactory.class,
                        () -> new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:1"))))
                .withPropertyValues("bloom-guard.filters.users.backend=redis", "bloom-guard.filters.users.puts-only=true",
                        "bloom-guard.redis.wait-for-replicas=1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("Invalid value '1' for property bloom-guard.redis.wait-for-replicas")
                            .contains("on Redis Cluster");
                });
    }

    @Test
    void lettuceOnOneServerMayWaitForReplicas() {
        RedisConnectionFactory lettuce = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
        RedisBackendConfiguration.checkCanWait(lettuce, 1); // does not throw
    }

    private void assertInvalid(List<String> properties, String name, String value, String allowed) {
        runner.withPropertyValues(properties.toArray(String[]::new)).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis").isNotNull();
            assertThat(analysis.getDescription()).contains("Invalid value '" + value + "' for property " + name)
                    .contains(allowed);
            assertThat(analysis.getAction()).contains("Update " + name);
        });
    }
}
