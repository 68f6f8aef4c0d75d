package io.bloomguard.autoconfigure;

import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.WhenBehind;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bloom-guard.filters.<name>.feed.*}: the change feed that keeps a filter current with rows written outside
 * the application.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class FeedProperties {

    /** Kind of feed: jdbc (polling a query), postgres (logical replication, with bloom-guard-debezium). None by default. */
    private @Nullable String type;

    /** How far behind the feed may fall before the filter counts as behind: health DEGRADED, and when-behind applies. */
    private Duration maxLag = Duration.ofSeconds(30);

    /**
     * What lookups do while the feed is behind or down: pass (call through until it catches up) or keep (keep
     * rejecting, and accept that rows written elsewhere are not found meanwhile).
     */
    private WhenBehind whenBehind = WhenBehind.PASS;

    private final Jdbc jdbc = new Jdbc();

    private final Postgres postgres = new Postgres();

    public @Nullable String getType() {
        return type;
    }

    public void setType(@Nullable String type) {
        this.type = type;
    }

    public Duration getMaxLag() {
        return maxLag;
    }

    public void setMaxLag(Duration maxLag) {
        this.maxLag = maxLag;
    }

    public WhenBehind getWhenBehind() {
        return whenBehind;
    }

    public void setWhenBehind(WhenBehind whenBehind) {
        this.whenBehind = whenBehind;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Postgres getPostgres() {
        return postgres;
    }

    /** The feed as set, or {@code null} when the filter has none; refuses values no feed can run with. */
    @Nullable FeedSettings settings(String filter) {
        String prefix = "bloom-guard.filters." + filter + ".feed.";
        if (type == null || type.isBlank()) {
            if (jdbc.query != null || postgres.table != null) {
                throw new InvalidBloomGuardPropertyException(prefix + "type", type, "jdbc or postgres: "
                        + ((jdbc.query != null) ? "feed.jdbc.query" : "feed.postgres.table") + " is set, but without"
                        + " feed.type the filter follows no feed");
            }
            return null;
        }
        if (maxLag.isNegative() || maxLag.isZero()) {
            throw new InvalidBloomGuardPropertyException(prefix + "max-lag", maxLag, "a positive duration");
        }
        return new FeedSettings(type.trim().toLowerCase(Locale.ROOT), maxLag, whenBehind,
                new FeedSettings.Jdbc(jdbc.query, jdbc.interval, jdbc.overlap),
                new FeedSettings.Postgres(postgres.table, postgres.keyColumn, postgres.slot, postgres.publication,
                        postgres.url, postgres.username, postgres.password, postgres.properties));
    }

    /** {@code feed.jdbc.*}: polling a query. */
    public static class Jdbc {

        /**
         * Query whose first column is the key and second the watermark, a timestamp the writers set at each insert
         * and key change, filtered by the :since parameter: "select id, updated_at from users where updated_at >
         * :since".
         */
        private @Nullable String query;

        /** Time between two polls. */
        private Duration interval = Duration.ofSeconds(1);

        /**
         * How far back each poll reads behind the highest watermark seen: longer than any writing transaction lasts
         * from stamping its rows to committing, plus the clock skew between the writers.
         */
        private Duration overlap = Duration.ofSeconds(30);

        public @Nullable String getQuery() {
            return query;
        }

        public void setQuery(@Nullable String query) {
            this.query = query;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getOverlap() {
            return overlap;
        }

        public void setOverlap(Duration overlap) {
            this.overlap = overlap;
        }
    }

    /** {@code feed.postgres.*}: PostgreSQL logical replication through Debezium (module bloom-guard-debezium). */
    public static class Postgres {

        /** Table to follow, schema-qualified: "public.users". */
        private @Nullable String table;

        /** Column whose value is the filter's key. */
        private String keyColumn = "id";

        /** Logical replication slot; bloom_guard_ and the filter's name by default. */
        private @Nullable String slot;

        /** Publication; bloom_guard_ and the filter's name by default. */
        private @Nullable String publication;

        /** JDBC URL of the database; spring.datasource.url by default. */
        private @Nullable String url;

        /** User that connects for replication; spring.datasource.username by default. */
        private @Nullable String username;

        /** Password of that user; spring.datasource.password by default. */
        private @Nullable String password;

        /** More Debezium connector properties, passed as they are. */
        private final Map<String, String> properties = new LinkedHashMap<>();

        public @Nullable String getTable() {
            return table;
        }

        public void setTable(@Nullable String table) {
            this.table = table;
        }

        public String getKeyColumn() {
            return keyColumn;
        }

        public void setKeyColumn(String keyColumn) {
            this.keyColumn = keyColumn;
        }

        public @Nullable String getSlot() {
            return slot;
        }

        public void setSlot(@Nullable String slot) {
            this.slot = slot;
        }

        public @Nullable String getPublication() {
            return publication;
        }

        public void setPublication(@Nullable String publication) {
            this.publication = publication;
        }

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public Map<String, String> getProperties() {
            return properties;
        }
    }
}
