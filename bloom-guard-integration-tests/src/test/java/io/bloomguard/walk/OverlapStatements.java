package io.bloomguard.walk;

import org.hibernate.resource.jdbc.spi.StatementInspector;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the ids the overlap walk's guarded reads sent to the database (one bind parameter each): what the guard let
 * through, for the share of absent keys it passes.
 */
public class OverlapStatements implements StatementInspector {

    static final AtomicLong IDS_QUERIED = new AtomicLong();

    @Override
    public String inspect(String sql) {
        if (sql.startsWith("select") && sql.contains("overlap_rows")) {
            IDS_QUERIED.addAndGet(sql.chars().filter(c -> c == '?').count());
        }
        return sql;
    }
}
