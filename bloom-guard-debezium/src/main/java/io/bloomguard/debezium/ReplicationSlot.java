package io.bloomguard.debezium;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The feed's replication slot and publication, seen over plain JDBC before Debezium's engine starts: created (or
 * moved to the present) for a feed that starts afresh, and checked for a feed that resumes, so that a gap is reported
 * instead of streamed over.
 */
final class ReplicationSlot {

    private final PostgresFeedSettings settings;

    ReplicationSlot(PostgresFeedSettings settings) {
        this.settings = settings;
    }

    Connection connect() throws SQLException {
        Properties properties = new Properties();
        if (this.settings.username() != null) {
            properties.setProperty("user", this.settings.username());
        }
        if (this.settings.password() != null) {
            properties.setProperty("password", this.settings.password());
        }
        properties.setProperty("ApplicationName", "bloom-guard feed " + this.settings.filter());
        return DriverManager.getConnection(this.settings.jdbcUrl(), properties);
    }

    /**
     * For a feed that starts from the present: the publication exists (it must before the slot: a slot decodes
     * changes with the catalog as it was, and a publication created later does not cover what came before it), and
     * the slot exists and stands at the present, so that every change committed from now on reaches the feed and
     * none before it.
     * @throws IllegalStateException when the table or its key column does not exist
     */
    void createOrMoveToPresent(Connection connection) throws SQLException {
        checkColumn(connection);
        String publication = PostgresFeedSettings.quote(this.settings.publication());
        if (!exists(connection, "select 1 from pg_publication where pubname = ?", this.settings.publication())) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("create publication " + publication + " for table " + this.settings.quotedTable());
            }
        }
        else if (!exists(connection, "select 1 from pg_publication_tables where pubname = ? and schemaname = ? and "
                + "tablename = ?", this.settings.publication(), this.settings.schema(), this.settings.table())) {
            // Now, not when Debezium gets to it: the table's changes are published only from this point on.
            try (Statement statement = connection.createStatement()) {
                statement.execute("alter publication " + publication + " add table " + this.settings.quotedTable());
            }
        }
        SlotState slot = read(connection);
        if (slot != null && (slot.lost() || !"pgoutput".equals(slot.plugin()))) {
            // Gone past use (or another plugin's): starting afresh, nothing is lost by dropping it.
            try (PreparedStatement drop = connection.prepareStatement("select pg_drop_replication_slot(?)")) {
                drop.setString(1, this.settings.slot());
                drop.execute();
            }
            slot = null;
        }
        String sql = slot == null ? "select pg_create_logical_replication_slot(?, 'pgoutput')"
                : "select pg_replication_slot_advance(?, pg_current_wal_lsn())";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, this.settings.slot());
            statement.execute();
        }
    }

    /**
     * Why the feed cannot resume after {@code position} without a gap, or {@code null} when it can: the slot must
     * still exist, hold the WAL it needs, and not have been confirmed past the position (by another consumer).
     * @param position the last position delivered, or {@code null} when none was since the slot was made
     */
    @Nullable String whyNotResumable(Connection connection, @Nullable FeedPosition position) throws SQLException {
        checkColumn(connection);
        SlotState slot = read(connection);
        String name = "replication slot " + this.settings.slot();
        if (slot == null) {
            return name + " does not exist (dropped, or never created on this database): changes since the feed's "
                    + "last position may be gone";
        }
        if (slot.lost()) {
            return name + " was invalidated: PostgreSQL removed WAL it still needed (max_slot_wal_keep_size)";
        }
        Long resumeLsn = position == null ? null : position.highestLsn();
        if (resumeLsn != null && slot.confirmedFlushLsn() != null
                && Long.compareUnsigned(slot.confirmedFlushLsn(), resumeLsn) > 0) {
            return name + " was confirmed up to " + lsn(slot.confirmedFlushLsn()) + ", past the feed's position "
                    + lsn(resumeLsn) + " (another consumer, or a slot made again): changes between are gone";
        }
        return null;
    }

    private void checkColumn(Connection connection) throws SQLException {
        if (!exists(connection, "select 1 from information_schema.columns where table_schema = ? and table_name = ?"
                + " and column_name = ?", this.settings.schema(), this.settings.table(), this.settings.keyColumn())) {
            throw new IllegalStateException("Table " + this.settings.schema() + "." + this.settings.table()
                    + " with a column " + this.settings.keyColumn() + " not found on " + this.settings.jdbcUrl()
                    + ": check bloom-guard.filters." + this.settings.filter() + ".feed.postgres.table and key-column");
        }
    }

    private @Nullable SlotState read(Connection connection) throws SQLException {
        // wal_status (PostgreSQL 13+) says whether the slot lost WAL it needed.
        boolean walStatus = connection.getMetaData().getDatabaseMajorVersion() >= 13;
        String sql = "select plugin, confirmed_flush_lsn - '0/0'::pg_lsn, " + (walStatus ? "wal_status" : "null")
                + " from pg_replication_slots where slot_name = ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, this.settings.slot());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return null;
                }
                String confirmed = row.getString(2);
                return new SlotState(row.getString(1), confirmed == null ? null : Long.valueOf(confirmed),
                        "lost".equals(row.getString(3)));
            }
        }
    }

    private static boolean exists(Connection connection, String sql, String... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next();
            }
        }
    }

    private static String lsn(long value) {
        return Long.toHexString(value >>> 32).toUpperCase() + "/" + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
    }

    private record SlotState(@Nullable String plugin, @Nullable Long confirmedFlushLsn, boolean lost) {
    }
}
