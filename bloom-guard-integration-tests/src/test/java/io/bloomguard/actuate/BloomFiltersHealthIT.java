package io.bloomguard.actuate;

import com.jayway.jsonpath.JsonPath;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code bloomFilters} health answers at once while Redis is dead or hung (it reads what the filters' background
 * work last saw), shows the filter {@code DEGRADED} with the open breaker as its reason, and leaves the application
 * {@code UP} with HTTP 200: a degraded filter lets calls through, which is safe.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class BloomFiltersHealthIT {

    /**
     * The bound asked for. A health check that sent Redis a command would wait for its 500 ms command timeout; reading
     * in-memory state over a local HTTP connection takes a few milliseconds.
     */
    private static final Duration BOUND = Duration.ofMillis(100);

    private RedisServerProcess redis;
    private ConfigurableApplicationContext context;
    private Http http;

    /** Each test kills or freezes the server; each starts on an empty, running one. */
    @BeforeEach
    void start(RedisServerProcess server) {
        redis = server;
        redis.restart();
        context = new SpringApplicationBuilder(ActuatedApplication.class)
                .properties(Stream.concat(Stream.of(ActuatedApplication.properties(redis.port(), "health-it:")),
                        Stream.of("server.port=0", "bloom-guard.redis.command-timeout=500ms",
                                "bloom-guard.redis.refresh-interval=100ms")).toArray(String[]::new))
                .run();
        http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
        assertThat(JsonPath.<String>read(http.get("/actuator/health/bloomFilters/users").body(), "$.status"))
                .isEqualTo("UP");
    }

    @AfterEach
    void stop() {
        if (redis.isRunning()) {
            redis.resume(); // a stopped server would hold the shutdown's last writes until their timeout
        }
        context.close();
    }

    @Test
    void answersAtOnceAndDegradedWhileRedisIsDead() {
        redis.kill();

        assertAnswersWithinBound();
        awaitDegradedWithOpenBreaker();
        assertAnswersWithinBound();
        assertApplicationStillUp();
    }

    @Test
    void answersAtOnceAndDegradedWhileRedisIsHung() {
        redis.pause();

        assertAnswersWithinBound();
        awaitDegradedWithOpenBreaker();
        assertAnswersWithinBound();
        assertApplicationStillUp();
    }

    /**
     * The median of five requests: a blocking check would be slow on every one, while one request slowed by a GC
     * pause or by other work on a busy build host must not fail the test.
     */
    private void assertAnswersWithinBound() {
        List<Long> millis = new ArrayList<>();
        for (int request = 0; request < 5; request++) {
            long start = System.nanoTime();
            HttpResponse<String> response = http.get("/actuator/health/bloomFilters");
            millis.add(Duration.ofNanos(System.nanoTime() - start).toMillis());
            assertThat(response.statusCode()).isEqualTo(200);
        }
        Collections.sort(millis);
        assertThat(millis.get(2)).as("median of %s ms", millis).isLessThan(BOUND.toMillis());
    }

    private void awaitDegradedWithOpenBreaker() {
        await("users DEGRADED with an open breaker").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String body = http.get("/actuator/health/bloomFilters/users").body();
            assertThat(JsonPath.<String>read(body, "$.status")).isEqualTo("DEGRADED");
            assertThat(JsonPath.<Boolean>read(body, "$.details.breakerOpen")).isTrue();
            assertThat(JsonPath.<List<String>>read(body, "$.details.reasons"))
                    .anySatisfy(reason -> assertThat(reason).contains("circuit breaker"));
        });
        // The local filter is not affected.
        assertThat(JsonPath.<String>read(http.get("/actuator/health/bloomFilters/skus").body(), "$.status"))
                .isEqualTo("UP");
    }

    /**
     * A degraded filter does not turn {@code bloomFilters} DOWN: it stays UP, with HTTP 200. (The application's own
     * {@code redis} indicator, which pings Redis, is DOWN meanwhile: that one is Spring Boot's.)
     */
    private void assertApplicationStillUp() {
        HttpResponse<String> bloomFilters = http.get("/actuator/health/bloomFilters");
        assertThat(bloomFilters.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(bloomFilters.body(), "$.status")).isEqualTo("UP");
    }
}
