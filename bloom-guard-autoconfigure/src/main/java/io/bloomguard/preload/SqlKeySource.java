package io.bloomguard.preload;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;

import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * {@code preload.sql}: the first column of every row a query returns, streamed through the application's
 * {@code DataSource} with a fetch size, so a large table is read in chunks rather than into memory.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class SqlKeySource implements BloomKeySource {

    /** Rows fetched per round trip. */
    public static final int FETCH_SIZE = 10_000;

    private final String filter;
    private final String sql;
    private final JdbcTemplate jdbc;

    public SqlKeySource(String filter, String sql, DataSource dataSource) {
        this.filter = filter;
        this.sql = sql;
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setFetchSize(FETCH_SIZE);
    }

    @Override
    public String filter() {
        return filter;
    }

    @Override
    public Stream<?> keys() {
        // The first column, whatever else the query selects (Spring's SingleColumnRowMapper refuses a second one).
        return jdbc.queryForStream(sql, (row, number) -> JdbcUtils.getResultSetValue(row, 1));
    }

    @Override
    public String toString() {
        return "preload.sql of '" + filter + "': " + sql;
    }
}
