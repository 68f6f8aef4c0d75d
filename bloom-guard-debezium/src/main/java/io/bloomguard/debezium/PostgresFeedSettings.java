package io.bloomguard.debezium;

import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FeedTarget;
import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One filter's PostgreSQL feed, resolved and checked: which database (its own {@code feed.postgres.url} or the
 * application's {@code spring.datasource.url}), which table and column, and the slot and publication names.
 *
 * @param filter the filter's name
 * @param removes whether the filter applies deletes
 * @param jdbcUrl the database's JDBC URL, for the feed's own queries
 * @param host the database's host, for Debezium
 * @param port the database's port
 * @param database the database's name
 * @param username the user, or {@code null} for the driver's default
 * @param password the password, or {@code null}
 * @param schema the table's schema
 * @param table the table's name
 * @param keyColumn the column whose value is the key
 * @param slot the replication slot's name
 * @param publication the publication's name
 * @param properties Debezium connector properties that override the feed's own
 */
record PostgresFeedSettings(String filter, boolean removes, String jdbcUrl, String host, int port, String database,
        @Nullable String username, @Nullable String password, String schema, String table, String keyColumn,
        String slot, String publication, Map<String, String> properties) {

    private static final String PREFIX = "bloom-guard.filters.";

    private static final int DEFAULT_PORT = 5432;

    /** What PostgreSQL takes as a slot name: lower-case letters, digits and underscores. */
    private static final Pattern SLOT_NAME = Pattern.compile("[a-z0-9_]{1,63}");

    PostgresFeedSettings {
        Objects.requireNonNull(filter, "filter");
        properties = Map.copyOf(properties);
    }

    /**
     * Resolves {@code target}'s {@code feed.postgres.*} against the application's {@code spring.datasource.*}.
     * @throws IllegalArgumentException naming the property to fix
     */
    static PostgresFeedSettings resolve(FeedTarget target, @Nullable String defaultUrl, @Nullable String defaultUsername,
            @Nullable String defaultPassword) {
        FeedSettings.Postgres postgres = target.settings().postgres();
        String property = PREFIX + target.filter() + ".feed.postgres.";
        String qualified = postgres.table();
        if (qualified == null || qualified.isBlank()) {
            throw new IllegalArgumentException(property + "table is required for feed.type postgres: the table to "
                    + "follow, such as public.users");
        }
        int dot = qualified.indexOf('.');
        String schema = dot < 0 ? "public" : qualified.substring(0, dot).trim();
        String table = qualified.substring(dot + 1).trim();
        if (schema.isEmpty() || table.isEmpty() || table.contains(".")) {
            throw new IllegalArgumentException(property + "table must be a table, or schema.table, such as "
                    + "public.users; was '" + qualified + "'");
        }
        if (postgres.keyColumn().isBlank()) {
            throw new IllegalArgumentException(property + "key-column must name the column holding the key");
        }
        boolean own = postgres.url() != null;
        String url = own ? postgres.url() : defaultUrl;
        if (url == null || !url.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException(own
                    ? property + "url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database); was '"
                            + url + "'"
                    : "feed.type postgres needs a PostgreSQL database: set " + property + "url, or spring.datasource.url"
                            + " to a jdbc:postgresql:// URL" + (url == null ? "" : " (it is '" + url + "')"));
        }
        String origin = own ? property + "url" : "spring.datasource.url";
        String rest = url.substring("jdbc:postgresql://".length());
        int slash = rest.indexOf('/');
        String hostPort = slash < 0 ? rest : rest.substring(0, slash);
        String database = slash < 0 ? "" : rest.substring(slash + 1);
        int query = database.indexOf('?');
        database = query < 0 ? database : database.substring(0, query);
        if (hostPort.isEmpty() || database.isEmpty()) {
            throw new IllegalArgumentException(origin + " must name a host and a database "
                    + "(jdbc:postgresql://host:port/database); was '" + url + "'");
        }
        // Several hosts (failover URLs): the feed follows the first, where the primary is expected.
        hostPort = hostPort.split(",")[0];
        String host = hostPort;
        int port = DEFAULT_PORT;
        int colon = hostPort.lastIndexOf(':');
        if (colon > hostPort.lastIndexOf(']')) {
            host = hostPort.substring(0, colon);
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            }
            catch (NumberFormatException ex) {
                throw new IllegalArgumentException(origin + " has no valid port: '" + url + "'", ex);
            }
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String username = own ? postgres.username() : firstNonNull(postgres.username(), defaultUsername);
        String password = own ? postgres.password() : firstNonNull(postgres.password(), defaultPassword);
        String generated = "bloom_guard_" + target.filter().toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String slot = postgres.slot() != null ? postgres.slot() : generated;
        if (!SLOT_NAME.matcher(slot).matches()) {
            throw new IllegalArgumentException(property + "slot must be 1 to 63 lower-case letters, digits or "
                    + "underscores (PostgreSQL's rule for slot names); was '" + slot + "'");
        }
        String publication = postgres.publication() != null ? postgres.publication() : generated;
        return new PostgresFeedSettings(target.filter(), target.removes(), url, host, port, database, username,
                password, schema, table, postgres.keyColumn().trim(), slot, publication, postgres.properties());
    }

    /** {@code "schema"."table"}, quoted for SQL. */
    String quotedTable() {
        return quote(this.schema) + "." + quote(this.table);
    }

    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static @Nullable String firstNonNull(@Nullable String first, @Nullable String second) {
        return first != null ? first : second;
    }
}
