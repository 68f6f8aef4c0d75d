package io.bloomguard.debezium;

import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FeedTarget;
import io.bloomguard.feed.WhenBehind;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PostgresFeedSettingsTest {

    @Test
    void theApplicationsDatasourceIsTheDefaultDatabase() {
        PostgresFeedSettings settings = resolve(postgres("public.users", null, null, null), "jdbc:postgresql://db.internal:6543/shop?sslmode=require",
                "app", "secret");
        assertThat(settings.host()).isEqualTo("db.internal");
        assertThat(settings.port()).isEqualTo(6543);
        assertThat(settings.database()).isEqualTo("shop");
        assertThat(settings.username()).isEqualTo("app");
        assertThat(settings.password()).isEqualTo("secret");
        assertThat(settings.slot()).isEqualTo("bloom_guard_user_ids");
        assertThat(settings.publication()).isEqualTo("bloom_guard_user_ids");
        assertThat(settings.schema()).isEqualTo("public");
        assertThat(settings.table()).isEqualTo("users");
    }

    @Test
    void aFeedsOwnUrlComesWithItsOwnCredentialsAndTheDefaultPort() {
        PostgresFeedSettings settings = resolve(postgres("users", "jdbc:postgresql://[::1]/other", "feed", null),
                "jdbc:postgresql://db/shop", "app", "secret");
        assertThat(settings.host()).isEqualTo("::1");
        assertThat(settings.port()).isEqualTo(5432);
        assertThat(settings.database()).isEqualTo("other");
        assertThat(settings.username()).isEqualTo("feed");
        assertThat(settings.password()).isNull();
        assertThat(settings.schema()).isEqualTo("public");
    }

    @Test
    void withoutAPostgresUrlTheErrorNamesBothProperties() {
        assertThatIllegalArgumentException().isThrownBy(() -> resolve(postgres("users", null, null, null),
                "jdbc:h2:mem:test", null, null))
            .withMessageContaining("bloom-guard.filters.user-ids.feed.postgres.url")
            .withMessageContaining("spring.datasource.url")
            .withMessageContaining("jdbc:h2:mem:test");
        assertThatIllegalArgumentException().isThrownBy(() -> resolve(postgres("users", null, null, null), null,
                null, null)).withMessageContaining("spring.datasource.url");
    }

    @Test
    void withoutATableTheErrorNamesTheProperty() {
        assertThatIllegalArgumentException().isThrownBy(() -> resolve(postgres(null, null, null, null),
                "jdbc:postgresql://db/shop", null, null))
            .withMessageContaining("bloom-guard.filters.user-ids.feed.postgres.table");
    }

    @Test
    void aPositionSurvivesItsTextWithLongNumbers() {
        FeedPosition position = FeedPosition.of(Map.of("server", "s"), Map.of("lsn", 24L, "txId", 7L,
                "ts_usec", 1_700_000_000_123_456L, "lsn_commit", 40L));
        FeedPosition read = FeedPosition.parse(position.toJson());
        assertThat(read).isEqualTo(position);
        assertThat(read.offset().get("txId")).isInstanceOf(Long.class);
        assertThat(read.highestLsn()).isEqualTo(40L);
        assertThat(read.committedAt()).hasToString("2023-11-14T22:13:20.123456Z");
        assertThatIllegalArgumentException().isThrownBy(() -> FeedPosition.parse("2024-01-01T00:00:00Z"));
    }

    private static PostgresFeedSettings resolve(FeedSettings.Postgres postgres, @Nullable String url,
            @Nullable String username, @Nullable String password) {
        FeedSettings settings = new FeedSettings("postgres", Duration.ofSeconds(5), WhenBehind.PASS,
                new FeedSettings.Jdbc(null, Duration.ofSeconds(1), Duration.ofSeconds(1)), postgres);
        return PostgresFeedSettings.resolve(new FeedTarget("user-ids", true, settings), url, username, password);
    }

    private static FeedSettings.Postgres postgres(@Nullable String table, @Nullable String url,
            @Nullable String username, @Nullable String password) {
        return new FeedSettings.Postgres(table, "id", null, null, url, username, password, Map.of());
    }
}
