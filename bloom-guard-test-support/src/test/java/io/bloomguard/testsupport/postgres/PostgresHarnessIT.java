package io.bloomguard.testsupport.postgres;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Proves the harness does what change feed tests rely on: a real server that takes logical replication slots,
 * keeps its data across a crash and a restart on the same port, and is gone once closed.
 */
@Timeout(120)
class PostgresHarnessIT {

    @Test
    void serverStartsAcceptsALogicalSlotAndStops() throws SQLException {
        PostgresServerProcess postgres = PostgresServerProcess.start();
        try (postgres) {
            assertThat(postgres.query("show wal_level")).containsExactly("logical");
            postgres.execute("create table users (id bigint primary key)", "insert into users values (1)");
            postgres.execute("select pg_create_logical_replication_slot('harness_slot', 'pgoutput')");
            assertThat(postgres.query("select plugin from pg_replication_slots where slot_name = 'harness_slot'"))
                .containsExactly("pgoutput");
            try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
                assertThat(statement.executeQuery("select 1").next()).isTrue();
            }
        }
        assertThat(postgres.isRunning()).isFalse();
        assertThatThrownBy(postgres::connect).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aKilledServerComesBackOnItsPortWithItsData() {
        try (PostgresServerProcess postgres = PostgresServerProcess.start()) {
            postgres.execute("create table users (id bigint primary key)", "insert into users values (1)");
            postgres.kill();
            assertThat(postgres.isRunning()).isFalse();
            postgres.restart();
            postgres.execute("insert into users values (2)");
            assertThat(postgres.query("select id from users order by id")).containsExactly("1", "2");
            postgres.stop();
            postgres.restart();
            assertThat(postgres.query("select count(*) from users")).containsExactly("2");
        }
    }

    @Test
    void theWrongPasswordIsRefused() {
        try (PostgresServerProcess postgres = PostgresServerProcess.start()) {
            assertThatThrownBy(() -> java.sql.DriverManager.getConnection(postgres.jdbcUrl(), postgres.username(),
                    "wrong")).isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
        }
    }

}
