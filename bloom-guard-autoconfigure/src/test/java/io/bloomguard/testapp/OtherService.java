package io.bloomguard.testapp;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;

import java.sql.PreparedStatement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Another service writing to the test application's database behind its back: plain JDBC, no repository, no
 * {@code @BloomPut}, so that only a change feed can tell the filters.
 */
public final class OtherService {

    private final JdbcTemplate jdbc;

    public OtherService(DataSource database) {
        this.jdbc = new JdbcTemplate(database);
    }

    /** Inserts a customer named {@code name} and returns the id the database gave it. */
    public long insertCustomer(String name) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO customer (name, tenant, code) VALUES (?, 't1', ?)", new String[] { "ID" });
            insert.setString(1, name);
            insert.setString(2, name);
            return insert;
        }, keys);
        return Objects.requireNonNull(keys.getKey()).longValue();
    }
}
