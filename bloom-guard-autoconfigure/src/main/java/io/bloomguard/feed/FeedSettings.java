package io.bloomguard.feed;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A filter's {@code feed.*} settings, as bound and checked.
 *
 * @param type the kind of feed ({@code jdbc}, {@code postgres}, or another {@link ChangeFeedFactory}'s)
 * @param maxLag how far behind the feed may fall before the filter counts as behind (health {@code DEGRADED}, and
 *     {@code whenBehind} applies)
 * @param whenBehind what lookups do while the feed is behind or down
 * @param jdbc {@code feed.jdbc.*}: the polling feed's
 * @param postgres {@code feed.postgres.*}: the PostgreSQL logical replication feed's
 * @since 0.1.0
 */
public record FeedSettings(String type, Duration maxLag, WhenBehind whenBehind, Jdbc jdbc, Postgres postgres) {

    public FeedSettings {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(maxLag, "maxLag");
        Objects.requireNonNull(whenBehind, "whenBehind");
        Objects.requireNonNull(jdbc, "jdbc");
        Objects.requireNonNull(postgres, "postgres");
    }

    /**
     * {@code feed.jdbc.*}.
     *
     * @param query a query whose first column is the key and whose second is the watermark (a timestamp the writers
     *     set at each insert and key change), with a {@code :since} parameter: {@code select id, updated_at from users
     *     where updated_at > :since}
     * @param interval the time between two polls
     * @param overlap how far back each poll reads behind the highest watermark seen: longer than any writing
     *     transaction lasts between stamping its rows and committing, plus the clock skew between the writers
     */
    public record Jdbc(@Nullable String query, Duration interval, Duration overlap) {

        public Jdbc {
            Objects.requireNonNull(interval, "interval");
            Objects.requireNonNull(overlap, "overlap");
        }
    }

    /**
     * {@code feed.postgres.*}.
     *
     * @param table the table to follow, schema-qualified: {@code public.users}
     * @param keyColumn the column whose value is the filter's key
     * @param slot the logical replication slot; {@code null} for {@code bloom_guard_<filter>}
     * @param publication the publication; {@code null} for {@code bloom_guard_<filter>}
     * @param url the database, as a JDBC URL; {@code null} for the application's {@code spring.datasource.url}
     * @param username {@code null} for the application's {@code spring.datasource.username}
     * @param password {@code null} for the application's {@code spring.datasource.password}
     * @param properties more Debezium connector properties, passed as they are
     */
    public record Postgres(@Nullable String table, String keyColumn, @Nullable String slot,
            @Nullable String publication, @Nullable String url, @Nullable String username, @Nullable String password,
            Map<String, String> properties) {

        public Postgres {
            Objects.requireNonNull(keyColumn, "keyColumn");
            properties = Map.copyOf(properties);
        }
    }
}
