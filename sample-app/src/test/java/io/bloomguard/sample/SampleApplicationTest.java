package io.bloomguard.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** The sample as a client sees it: real HTTP against the running service, on its seeded H2 database. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class SampleApplicationTest {

    @LocalServerPort
    int port;

    RestClient http;

    @BeforeEach
    void connect() {
        http = RestClient.create("http://localhost:" + port);
    }

    @Test
    void existingUserIsFound() {
        UserJson user = http.get().uri("/users/42").retrieve().body(UserJson.class);

        assertThat(user).isEqualTo(new UserJson(42, "User 42", "user42@example.com"));
    }

    @Test
    void absentUserIsNotFound() {
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.get().uri("/users/987654321").retrieve().toBodilessEntity());
    }

    @Test
    void productIsFoundByTenantAndSku() {
        ProductJson product = http.get().uri("/products/acme/SKU-00042").retrieve().body(ProductJson.class);

        assertThat(product).isEqualTo(new ProductJson("acme", "SKU-00042", "Product 42 of acme"));
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.get().uri("/products/acme/SKU-99999").retrieve().toBodilessEntity());
    }

    /**
     * A delete that proves its row went takes the key out of the counting filter: lookups of it are rejected again.
     * A removed key can still test positive if its counters are shared: at 2,000 keys in room for 5,000 (error rate
     * 0.01, 7 hashes) that is ~10^-4 per key, so two of five ~10^-7.
     */
    @Test
    void deletedProductsAreRejectedAgain() {
        List<String> skus = List.of("SKU-00101", "SKU-00102", "SKU-00103", "SKU-00104", "SKU-00105");
        long rejectedBefore = filters().get("products").rejected();
        for (String sku : skus) {
            ResponseEntity<Void> deleted = http.delete().uri("/products/globex/{sku}", sku).retrieve()
                    .toBodilessEntity();
            assertThat(deleted.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
            assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                    .isThrownBy(() -> http.get().uri("/products/globex/{sku}", sku).retrieve().toBodilessEntity());
        }

        assertThat(filters().get("products").rejected() - rejectedBefore).isGreaterThanOrEqualTo(skus.size() - 1);
        // A delete of no row removes nothing: the other tenants' SKU-00101 is still found.
        assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                .isThrownBy(() -> http.delete().uri("/products/globex/SKU-00101").retrieve().toBodilessEntity());
        assertThat(http.get().uri("/products/acme/SKU-00101").retrieve().body(ProductJson.class))
                .isEqualTo(new ProductJson("acme", "SKU-00101", "Product 101 of acme"));
    }

    @Test
    void createdUserIsFoundRightAway() {
        // A new id was not preloaded: without the @BloomPut on save, the guard would answer 404 for it.
        ResponseEntity<UserJson> created = http.post().uri("/users").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("name", "Ada", "email", "ada@example.com")).retrieve().toEntity(UserJson.class);
        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        UserJson user = created.getBody();
        assertThat(user.id()).isGreaterThan(SeedData.USER_COUNT);

        UserJson found = http.get().uri("/users/{id}", user.id()).retrieve().body(UserJson.class);

        assertThat(found).isEqualTo(new UserJson(user.id(), "Ada", "ada@example.com"));
    }

    /**
     * A user another program inserts with plain SQL skips the repository's {@code @BloomPut}: the {@code users}
     * filter's change feed adds its id within a poll, and then it is found; absent ids are still rejected.
     */
    @Test
    void userInsertedElsewhereIsFoundOnceTheFeedCaughtUp() {
        InsertedJson inserted = http.post().uri("/demo/insert-elsewhere").retrieve().body(InsertedJson.class);
        long id = inserted.id();
        assertThat(id).isGreaterThan(SeedData.USER_COUNT);

        // Polled every second; without the feed it stays 404 until a rebuild.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(HttpClientErrorException.NotFound.class)
                .untilAsserted(() -> assertThat(http.get().uri("/users/{id}", id).retrieve().body(UserJson.class))
                        .isEqualTo(new UserJson(id, "Written elsewhere", "elsewhere@example.com")));

        FeedJson feed = http.get().uri("/actuator/bloomfilters/users").retrieve().body(FilterDetailJson.class).feed();
        assertThat(feed.state()).isEqualTo("RUNNING");
        assertThat(feed.behind()).isFalse();
        assertThat(feed.lagMillis()).isNotNull().isLessThanOrEqualTo(feed.maxLagMillis());
        assertThat(feed.added()).isPositive();
        // The guard still guards: 20 random absent ids, at most two false positives (~3·10^-4 each).
        long rejectedBefore = filters().get("users").rejected();
        Random random = new Random(43);
        for (int i = 0; i < 20; i++) {
            long absentId = SeedData.FIRST_ABSENT_USER_ID + random.nextInt(1_000_000_000);
            assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
                    .isThrownBy(() -> http.get().uri("/users/{id}", absentId).retrieve().toBodilessEntity());
        }
        assertThat(filters().get("users").rejected() - rejectedBefore).isGreaterThanOrEqualTo(18);
    }

    @Test
    void absentLookupsRunFarFewerQueriesThanLookups() {
        int count = 2_000;

        LookupRun run = http.get().uri("/demo/absent?count={count}", count).retrieve().body(LookupRun.class);

        assertThat(run.lookups()).isEqualTo(count);
        assertThat(run.empty()).isEqualTo(count);
        // Only false positives reach the database. The filter is sized for error rate 0.01 at 100,000 keys and
        // holds ~5,000, so it lets through far fewer than count * 0.01 = 20 absent ids; 100 leaves room for
        // noise while still failing if the guard let absent ids through.
        assertThat(run.databaseStatements()).isLessThan(100);
        assertThat(run.rejectedByGuard()).isGreaterThan(count - 100);
    }

    @Test
    void filtersEndpointCountsTheRejectedLookups() {
        long rejectedBefore = filters().get("users").rejected();

        http.get().uri("/demo/absent?count=1000").retrieve().toBodilessEntity();

        Map<String, FilterJson> filters = filters();
        assertThat(filters).containsOnlyKeys("users", "products");
        FilterJson users = filters.get("users");
        assertThat(users.state()).isEqualTo("READY");
        assertThat(users.expectedSize()).isEqualTo(10_000);
        assertThat(users.approximateElements()).isBetween(4_900L, 5_100L);
        assertThat(users.rejected() - rejectedBefore).isGreaterThan(900);
    }

    @Test
    void floodLookupsAnswerAlikeAndOnlyTheGuardedOneIsRejectedByTheFilter() {
        int absentLookups = 20;
        for (String lookup : List.of("unguarded", "cached", "guarded")) {
            UserJson user = http.get().uri("/flood/{lookup}/42", lookup).retrieve().body(UserJson.class);
            assertThat(user).as(lookup).isEqualTo(new UserJson(42, "User 42", "user42@example.com"));

            long rejectedBefore = filters().get("users").rejected();
            for (int i = 0; i < absentLookups; i++) {
                long absentId = SeedData.FIRST_ABSENT_USER_ID + 7919L * i;
                assertThatExceptionOfType(HttpClientErrorException.NotFound.class).as(lookup)
                        .isThrownBy(() -> http.get().uri("/flood/{lookup}/{id}", lookup, absentId).retrieve()
                                .toBodilessEntity());
            }
            long rejected = filters().get("users").rejected() - rejectedBefore;
            if (lookup.equals("guarded")) {
                // The filter holds ~5,000 ids in room for 10,000: a false positive has probability ~3·10^-4, so
                // three among 20 lookups ~10^-8.
                assertThat(rejected).isGreaterThanOrEqualTo(absentLookups - 2);
            }
            else {
                assertThat(rejected).as(lookup).isZero();
            }
        }
    }

    private Map<String, FilterJson> filters() {
        return http.get().uri("/actuator/bloomfilters").retrieve().body(FiltersJson.class).filters();
    }

    /** {@code GET /actuator/bloomfilters}, the fields the live page shows. */
    record FiltersJson(Map<String, FilterJson> filters) {
    }

    record FilterJson(String state, long expectedSize, long approximateElements, long rejected) {
    }

    /** {@code GET /actuator/bloomfilters/{name}}, its change feed. */
    record FilterDetailJson(FeedJson feed) {
    }

    record FeedJson(String state, Long lagMillis, long maxLagMillis, boolean behind, long added) {
    }

    record InsertedJson(long id, boolean inFilterYet) {
    }

    record UserJson(long id, String name, String email) {
    }

    record ProductJson(String tenant, String sku, String name) {
    }
}
