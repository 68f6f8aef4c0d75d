package io.bloomguard.sample;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.http.MediaType;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The sample as an ahead-of-time processed application: the jar {@code ./mvnw verify} packaged after
 * {@code spring-boot:process-aot}, started in a JVM of its own with {@code -Dspring.aot.enabled=true}, with which
 * Spring Boot builds the context from the generated initializer (and refuses to start without one). Runs with the
 * {@code aot} profile, which is on unless {@code -Dspring-boot.aot.skip=true}; the application's log is in
 * {@code target/aot-application.log}.
 */
@EnabledIfSystemProperty(named = "sample.aot.jar", matches = ".+")
class AotApplicationIT {

    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

    private static final Path LOG = Path.of("target", "aot-application.log");

    private static Process application;

    private static RestClient http;

    @BeforeAll
    static void start() throws IOException {
        Path jar = Path.of(System.getProperty("sample.aot.jar"));
        assertThat(jar).as("the packaged sample").isRegularFile();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // visited-urls: a filter that only the configuration the application starts with declares.
        application = new ProcessBuilder(java.toString(), "-Dspring.aot.enabled=true", "-Xmx384m", "-jar",
                jar.toString(), "--server.port=0", "--bloom-guard.filters.visited-urls.expected-size=1000")
                .redirectErrorStream(true).redirectOutput(LOG.toFile()).start();
        // Runners (the preload among them) have finished when the sample's own report appears.
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                .until(() -> !application.isAlive() || log().contains("bloom-guard sample is ready"));
        assertThat(application.isAlive()).as("the AOT-processed sample is running; its log:%n%s", log()).isTrue();
        Matcher port = PORT.matcher(log());
        assertThat(port.find()).as("the port in the log").isTrue();
        http = RestClient.create("http://localhost:" + port.group(1));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (application != null) {
            application.destroy();
            if (!application.waitFor(30, TimeUnit.SECONDS)) {
                application.destroyForcibly();
            }
        }
    }

    @Test
    void startsFromTheGeneratedInitializer() throws IOException {
        assertThat(log()).contains("Starting AOT-processed SampleApplication").doesNotContain("ERROR");
    }

    /** The counts come from the users filter's bean, which UserLookupDemo injects by its name. */
    @Test
    void absentIdsAreRejectedByTheGuard() {
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.get().uri("/users/987654321").retrieve().toBodilessEntity());

        LookupRun run = http.get().uri("/demo/absent?count=1000").retrieve().body(LookupRun.class);

        assertThat(run.empty()).isEqualTo(1000);
        // Error rate 0.01 at 10,000 keys, ~5,000 held: far fewer than 100 of 1,000 absent ids get through.
        assertThat(run.rejectedByGuard()).isGreaterThan(900);
        assertThat(run.databaseStatements()).isLessThan(100);
    }

    @Test
    void existingIdsAreFound() {
        UserJson user = http.get().uri("/users/42").retrieve().body(UserJson.class);

        assertThat(user).isEqualTo(new UserJson(42, "User 42", "user42@example.com"));
    }

    /** The put's key comes from the result through a SpEL expression (#result.id). */
    @Test
    void createdUserIsFoundRightAway() {
        UserJson created = http.post().uri("/users").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("name", "Ada", "email", "ada@example.com")).retrieve().body(UserJson.class);

        UserJson found = http.get().uri("/users/{id}", created.id()).retrieve().body(UserJson.class);

        assertThat(found).isEqualTo(created);
    }

    /** Filters come from the configuration the application starts with, not the one it was processed with. */
    @Test
    void aFilterDeclaredAtStartupIsThere() {
        FiltersJson filters = http.get().uri("/actuator/bloomfilters").retrieve().body(FiltersJson.class);

        assertThat(filters.filters()).containsOnlyKeys("users", "products", "visited-urls");
    }

    /** A write operation of the endpoint, and its error bodies: JSON written from records the hints name. */
    @Test
    void theEndpointAnswersWriteOperationsAndErrors() {
        MembershipJson test = http.post().uri("/actuator/bloomfilters/users")
                .contentType(MediaType.APPLICATION_JSON).body(Map.of("action", "test", "key", "42")).retrieve()
                .body(MembershipJson.class);
        assertThat(test.mightContain()).isTrue();

        assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
                .isThrownBy(() -> http.post().uri("/actuator/bloomfilters/users")
                        .contentType(MediaType.APPLICATION_JSON).body(Map.of("action", "shrink")).retrieve()
                        .toBodilessEntity())
                .satisfies(refused -> assertThat(refused.getResponseBodyAsString()).contains("\"message\"")
                        .contains("shrink"));
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.get().uri("/actuator/bloomfilters/userz").retrieve().toBodilessEntity())
                .satisfies(unknown -> assertThat(unknown.getResponseBodyAsString()).contains("\"filters\"")
                        .contains("products"));
    }

    /**
     * {@code @BloomRemove}: a proven delete takes the key out of the counting filter. A removed key still tests
     * positive only if all its counters are shared, ~10^-4 per key at this fill, so two of three ~10^-8.
     */
    @Test
    void aDeletedProductLeavesTheFilter() {
        List<String> skus = List.of("SKU-00201", "SKU-00202", "SKU-00203");
        int removed = 0;
        for (String sku : skus) {
            assertThat(http.delete().uri("/products/initech/{sku}", sku).retrieve().toBodilessEntity()
                    .getStatusCode().value()).isEqualTo(204);
            MembershipJson test = http.post().uri("/actuator/bloomfilters/products")
                    .contentType(MediaType.APPLICATION_JSON).body(Map.of("action", "test", "key", "initech:" + sku))
                    .retrieve().body(MembershipJson.class);
            removed += test.mightContain() ? 0 : 1;
        }

        assertThat(removed).isGreaterThanOrEqualTo(skus.size() - 1);
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.get().uri("/products/initech/SKU-00201").retrieve().toBodilessEntity());
    }

    record UserJson(long id, String name, String email) {
    }

    record MembershipJson(boolean mightContain) {
    }

    record FiltersJson(Map<String, Object> filters) {
    }

    private static String log() throws IOException {
        return Files.exists(LOG) ? Files.readString(LOG) : "";
    }
}
