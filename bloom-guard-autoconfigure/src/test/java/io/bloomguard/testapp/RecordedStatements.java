package io.bloomguard.testapp;

import org.hibernate.resource.jdbc.spi.StatementInspector;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The SQL Hibernate sends, with its {@code ?} placeholders, while a test records it: how many statements a call made
 * and how many parameters each bound. Set as {@code hibernate.session_factory.statement_inspector}.
 */
public class RecordedStatements implements StatementInspector {

    private static final List<String> recorded = new CopyOnWriteArrayList<>();
    private static volatile boolean recording;

    /** Records the statements {@code calls} sends, and returns them. */
    public static List<String> during(Runnable calls) {
        recorded.clear();
        recording = true;
        try {
            calls.run();
        }
        finally {
            recording = false;
        }
        return List.copyOf(recorded);
    }

    /** The parameters a statement binds: its {@code ?} placeholders. */
    public static long boundParameters(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }

    @Override
    public String inspect(String sql) {
        if (recording) {
            recorded.add(sql);
        }
        return sql;
    }
}
