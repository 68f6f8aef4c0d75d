package io.bloomguard.redis;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A key of a filter that holds a value of another type than bloom-guard writes there (another application's key under
 * the prefix, or a bitmap a server keeps as a type of its own, {@code bitmap-default-roaring yes}): Redis answers
 * {@code WRONGTYPE} to every command on it. It must be named, as a refused command is ({@code ACCESS_DENIED}, with the
 * key, its type and what to do), not show as a stream of backend errors that passes every call.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(RedisServerExtension.class)
class RedisKeyTypeIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final List<Object> ROWS = LongStream.range(0, 1_000).boxed().collect(Collectors.toList());

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    @Test
    void aBitmapReplacedByAListIsRefusedAtStartNamingTheKeyAndWhatToDo() {
        try (TestRedisBackend first = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            assertThat(first.backend.create("listed", SIZING, 1, 1).start(RecordingKeyFeed.of(ROWS)))
                .isEqualTo(StartOutcome.LOADED_HERE);
        }
        String bitmap = liveBitmap("listed");
        String shown = withoutSeed(bitmap);
        server.command("DEL", bitmap);
        server.command("LPUSH", bitmap, "another application's value");

        try (TestRedisBackend second = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = second.backend.create("listed", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(ROWS))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.ACCESS_DENIED);
            assertThat(filter.trustedToReject()).isFalse();
            RedisAccessDeniedException refused = filter.accessDenied();
            assertThat(refused).isNotNull();
            assertThat(refused.code()).isEqualTo("WRONGTYPE");
            assertThat(refused.getMessage()).contains("the key " + shown + " holds a value of type list, not a string");
            assertThat(refused.action()).contains("bitmap-default-roaring no").contains("bloom-guard.redis.key-prefix")
                .contains("redis-cli --scan --pattern '" + shown + "'");
            assertThat(filter.statusReason()).contains(shown).contains("bitmap-default-roaring no")
                .as("never the seed").doesNotContain(bitmap);
            assertThatThrownBy(() -> filter.put(5_000L)).as("an add is refused, not kept for a replay that cannot come")
                .isInstanceOf(RedisAccessDeniedException.class);
            assertThat(filter.pendingAdds()).isZero();
        }
    }

    @Test
    void metadataOfAnotherTypeIsRefusedAtStartNamingIt() {
        String meta = "bloom-guard:{stringed}:meta";
        server.command("SET", meta, "another application's value");
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("stringed", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(ROWS))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(filter.accessDenied().getMessage())
                .contains("the key " + meta + " holds a value of type string, not a hash");
            assertThat(filter.accessDenied().action()).contains("DEL " + meta);
        }
    }

    /**
     * Replaced while the filter runs: the first check Redis refuses makes the filter refused (no more checks are
     * sent), the next refresh names the key in the log, once, and in its status reason; once the key is deleted the
     * filter is rebuilt from its key source and rejects again.
     */
    @Test
    void aBitmapReplacedWhileRunningIsNamedOnceAndTheFilterRecoversOnceItIsDeleted(CapturedOutput output) {
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("hashed", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(ROWS))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.trustedToReject()).isTrue();
            String bitmap = liveBitmap("hashed");
            String shown = withoutSeed(bitmap);
            server.command("DEL", bitmap);
            server.command("HSET", bitmap, "field", "another application's value");

            int sent = 0;
            for (long key = 0; key < 500; key++) { // as the guard does: only a trusted filter is asked
                if (filter.trustedToReject()) {
                    sent++;
                    long checked = key;
                    assertThatThrownBy(() -> filter.mightContain(checked)).isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("WRONGTYPE");
                }
            }
            // One, or none when the maintenance's read of the fill met the hash first.
            assertThat(sent).as("checks sent once Redis answered WRONGTYPE").isLessThanOrEqualTo(1);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.ACCESS_DENIED);
            await("the key named").atMost(Duration.ofSeconds(10))
                .until(() -> String.valueOf(filter.statusReason()).contains(shown));
            assertThat(filter.statusReason()).contains("holds a value of type hash, not a string");
            assertThat(RedisAccessIT.errorLines(output, "Filter 'hashed'")).hasSize(1)
                .allMatch(line -> line.contains(shown) && line.contains("bitmap-default-roaring no"));

            server.command("DEL", bitmap);
            await("rebuilt from its key source").atMost(Duration.ofSeconds(15))
                .until(() -> filter.status() == SharedFilterStatus.READY);
            assertThat(filter.mightContainAll(ROWS)).containsOnly(true);
            await("rejecting again once the checks' breaker lets a check through").atMost(Duration.ofSeconds(5))
                .ignoreExceptionsInstanceOf(RedisUnavailableException.class)
                .until(() -> !filter.mightContain(987_654_321L));
            assertThat(output.getOut().lines().filter(line -> line.contains("Filter 'hashed'")
                    && line.contains("hold what bloom-guard writes there again"))).hasSize(1);
            assertThat(RedisAccessIT.errorLines(output, "Filter 'hashed'")).hasSize(1);
        }
    }

    /**
     * An application whose filter's bitmap holds a list does not start, and the report says which key and what to do;
     * one that meets it while running holds its readiness, and its health says it.
     */
    @Test
    void anApplicationDoesNotStartOnABitmapOfAnotherTypeAndAnotherSaysSoInItsHealth(CapturedOutput output) {
        try (GuardedApplications apps = new GuardedApplications("key-type", "typed")) {
            ConfigurableApplicationContext running = start(apps, true);
            NamedBloomFilter codes = filter(running, "codes");
            assertThat(codes.state()).isEqualTo(FilterState.READY);
            String bitmap = server.command("KEYS", apps.keyPrefix() + "{codes}:bits:*");
            String shown = withoutSeed(bitmap);
            server.command("DEL", bitmap);
            server.command("LPUSH", bitmap, "another application's value");

            assertThatThrownBy(() -> start(apps, false)).isInstanceOf(RedisAccessDeniedException.class);
            assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("the key " + shown + " holds a value of type list, not a string")
                .contains("bitmap-default-roaring no");

            await("refused, once a check or a refresh meets the list").atMost(Duration.ofSeconds(10))
                .until(() -> {
                    try {
                        codes.backend().mightContain(1L);
                    }
                    catch (RedisUnavailableException ex) {
                        // Redis's WRONGTYPE, which on-backend-failure would take
                    }
                    return codes.state() == FilterState.ACCESS_DENIED && String.valueOf(codes.stateReason())
                        .contains(shown);
                });
            assertThat(running.getBean(ApplicationAvailability.class).getReadinessState())
                .isEqualTo(ReadinessState.REFUSING_TRAFFIC);
            Health health = new BloomFilterHealthIndicator(codes).health();
            assertThat(health.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(health.getDetails().get("reasons").toString()).contains("ACCESS_DENIED")
                .contains("the key " + shown + " holds a value of type list").contains("bitmap-default-roaring no");
        }
    }

    private static ConfigurableApplicationContext start(GuardedApplications apps, boolean initializeDatabase) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters.customers.backend", "redis");
        properties.put("bloom-guard.filters.codes.backend", "redis");
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        return apps.start(server, initializeDatabase, properties);
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }

    /** A bitmap's name as the filter shows it: with {@code *} for the seed. */
    private static String withoutSeed(String bitmap) {
        return bitmap.replaceFirst("\\.s[0-9a-f]+\\.n", ".s*.n");
    }

    /** The one live bitmap of a filter of one shard under the tests' key prefix. */
    private static String liveBitmap(String filter) {
        String found = server.command("KEYS", "bloom-guard:{" + filter + "}:bits:*");
        assertThat(found).as("one live bitmap").isNotBlank().doesNotContain("\n");
        return found;
    }
}
