package io.bloomguard.actuate;

import com.jayway.jsonpath.JsonPath;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The {@code bloomfilters} endpoint over HTTP, as an operator uses it, with one filter in a real Redis. */
@Timeout(120)
@SpringBootTest(classes = ActuatedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ExtendWith(RedisServerExtension.class)
class BloomFiltersEndpointIT {

    private static RedisServerProcess redis;

    @LocalServerPort
    private int port;

    @Autowired
    private BloomFilterRegistry registry;

    /** Runs before the application starts (with the first test), so that {@link #properties} can read the port. */
    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry properties) {
        for (String property : ActuatedApplication.properties(redis.port(), "endpoint-it:")) {
            String[] pair = property.split("=", 2);
            properties.add(pair[0], () -> pair[1]);
        }
        properties.add("management.endpoint.bloomfilters.access", () -> "unrestricted"); // its writes are tested
    }

    @Test
    void listsEveryFilterWithItsHeadline() {
        HttpResponse<String> response = http().get("/actuator/bloomfilters");

        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, Object> users = JsonPath.read(response.body(), "$.filters.users");
        assertThat(users).containsEntry("backend", "redis").containsEntry("mode", "enforce")
                .containsEntry("state", "READY").containsEntry("expectedSize", 10000)
                .containsEntry("configuredErrorRate", 0.01).containsEntry("estimatesStale", false)
                .containsKeys("stateReason", "stateSince", "approximateElements", "capacityRatio",
                        "expectedFalsePositiveRate", "measuredFalsePositiveRate", "rejected", "passed", "skipped",
                        "falsePositives");
        assertThat(JsonPath.<String>read(response.body(), "$.filters.skus.backend")).isEqualTo("local");
        assertThat(JsonPath.<Integer>read(response.body(), "$.filters.skus.approximateElements")).isBetween(480, 520);
    }

    @Test
    void describesARedisFilterWithItsGenerationAndKeysButNeverItsSeed() {
        HttpResponse<String> response = http().get("/actuator/bloomfilters/users");

        assertThat(response.statusCode()).isEqualTo(200);
        String body = response.body();
        String generation = JsonPath.read(body, "$.redis.generation");
        assertThat(generation).matches("v\\d+\\.b\\d+\\.k\\d+\\.s\\*\\.n1");
        List<String> keys = JsonPath.read(body, "$.redis.keys");
        assertThat(keys).singleElement().asString().isEqualTo("endpoint-it:{users}:bits:" + generation);
        // The key, with * for its seed, is a pattern that finds the live bitmap.
        assertThat(redis.command("KEYS", keys.get(0))).startsWith("endpoint-it:{users}:bits:v");
        assertThat(JsonPath.<Boolean>read(body, "$.redis.breakerOpen")).isFalse();
        assertThat(JsonPath.<Integer>read(body, "$.layout.shards")).isEqualTo(1);
        assertThat(JsonPath.<Integer>read(body, "$.lastPreload.keys")).isEqualTo(500);
        assertThat(JsonPath.<String>read(body, "$.spec.backend")).isEqualTo("redis");
        assertThat(JsonPath.<Map<String, Object>>read(body, "$.counters.skippedByReason")).containsOnlyKeys(
                "not_ready", "mode_off", "no_key", "backend_failure", "write_pending");
        String seed = Integer.toHexString(registry.get("users").seed());
        assertThat(body).doesNotContain(".s" + seed).doesNotContainIgnoringCase("seed");
    }

    @Test
    void anUnknownFilterIsA404ListingTheConfiguredOnes() {
        HttpResponse<String> response = http().get("/actuator/bloomfilters/userz");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(JsonPath.<List<String>>read(response.body(), "$.filters")).containsExactly("users", "skus");
        assertThat(JsonPath.<String>read(response.body(), "$.message")).contains("'userz'");
    }

    @Test
    void rebuildsARedisFilterFromItsKeySource() {
        String rebuild = rebuilt("users");

        assertThat(JsonPath.<String>read(rebuild, "$.state")).isEqualTo("succeeded");
        assertThat(JsonPath.<Integer>read(rebuild, "$.keys")).isEqualTo(500);
        assertThat(JsonPath.<Integer>read(rebuild, "$.durationMillis")).isNotNegative();
        String detail = http().get("/actuator/bloomfilters/users").body();
        assertThat(JsonPath.<Integer>read(detail, "$.lastRebuild.keys")).isEqualTo(500);
        assertThat(JsonPath.<String>read(detail, "$.state")).isEqualTo("READY");
    }

    @Test
    void aLocalFilterIsRebuiltFromItsKeySource() {
        String rebuild = rebuilt("skus");

        assertThat(JsonPath.<String>read(rebuild, "$.state")).isEqualTo("succeeded");
        assertThat(JsonPath.<Integer>read(rebuild, "$.keys")).isEqualTo(500);
        String detail = http().get("/actuator/bloomfilters/skus").body();
        assertThat(JsonPath.<Integer>read(detail, "$.lastRebuild.keys")).isEqualTo(500);
        assertThat(JsonPath.<String>read(detail, "$.state")).isEqualTo("READY");
    }

    @Test
    void testsWhetherAKeyMightBeInTheFilter() {
        assertThat(http().post("/actuator/bloomfilters/users", "{\"action\":\"test\",\"key\":\"42\"}").body())
                .isEqualTo("{\"mightContain\":true}");
        assertThat(http().post("/actuator/bloomfilters/users", "{\"action\":\"test\",\"key\":\"100000042\"}").body())
                .isEqualTo("{\"mightContain\":false}");
    }

    @Test
    void anUnknownActionIsA400ListingTheActions() {
        HttpResponse<String> response = http().post("/actuator/bloomfilters/users", "{\"action\":\"flush\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("actions: rebuild, confirm-rebuild, test, mode");
    }

    @Test
    void aFilterIsSwitchedToShadowAndBackAndTheEndpointShowsIt() {
        try {
            HttpResponse<String> switched = http().post("/actuator/bloomfilters/skus",
                    "{\"action\":\"mode\",\"mode\":\"shadow\"}");

            assertThat(switched.statusCode()).isEqualTo(200);
            assertThat(switched.body())
                    .isEqualTo("{\"mode\":\"shadow\",\"previous\":\"enforce\",\"configured\":\"enforce\"}");
            assertThat(JsonPath.<String>read(http().get("/actuator/bloomfilters").body(), "$.filters.skus.mode"))
                    .isEqualTo("shadow");
            assertThat(JsonPath.<String>read(http().get("/actuator/health/bloomFilters").body(),
                    "$.components.skus.details.configuredMode")).isEqualTo("enforce");
        }
        finally {
            assertThat(http().post("/actuator/bloomfilters/skus", "{\"action\":\"mode\",\"mode\":\"enforce\"}")
                    .statusCode()).isEqualTo(200);
        }
        assertThat(JsonPath.<String>read(http().get("/actuator/bloomfilters/skus").body(), "$.mode"))
                .isEqualTo("enforce");
    }

    @Test
    void healthShowsEachFilterUnderBloomFilters() {
        HttpResponse<String> response = http().get("/actuator/health/bloomFilters");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(response.body(), "$.components.users.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(response.body(), "$.components.skus.details.state")).isEqualTo("READY");
    }

    /** Starts a rebuild (answered at once, 202, with its id) and polls it until it has ended: the last body. */
    private String rebuilt(String filter) {
        HttpResponse<String> started = http().post("/actuator/bloomfilters/" + filter, "{\"action\":\"rebuild\"}");
        assertThat(started.statusCode()).isEqualTo(202);
        String id = JsonPath.read(started.body(), "$.id");
        return await().atMost(Duration.ofSeconds(30)).until(
                () -> http().get("/actuator/bloomfilters/" + filter + "/rebuilds/" + id).body(),
                body -> !JsonPath.<String>read(body, "$.state").equals("running"));
    }

    private Http http() {
        return new Http(port);
    }
}
