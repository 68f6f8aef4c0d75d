package io.bloomguard.benchmarks.feed;

import io.bloomguard.testsupport.postgres.PostgresServerProcess;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * What the database spends, read before and after a measured window: the CPU time of the PostgreSQL processes from
 * {@code /proc} (the postmaster, its children, and the backends that ended, which the postmaster's {@code cutime}
 * and {@code cstime} count), split into the writer's backend, the feed's backends (every client backend and WAL
 * sender that is neither the writer nor this monitor) and the rest (background processes: WAL writer,
 * checkpointer, autovacuum); and from {@code pg_stat_statements}, the polling query's calls, rows and execution time.
 */
final class DatabaseCost implements AutoCloseable {

    static final String APPLICATION_NAME = "bloom-guard-bench monitor";

    /** {@code pg_stat_statements}' normalized text of the jdbc feed's query. */
    static final String POLL_QUERY = "select id, created_at from users where created_at > $1";

    private static final long CLOCK_TICKS = clockTicks();

    private final Connection connection;

    private final long postmaster;

    DatabaseCost(PostgresServerProcess postgres) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", postgres.username());
        properties.setProperty("password", postgres.password());
        properties.setProperty("ApplicationName", APPLICATION_NAME);
        this.connection = DriverManager.getConnection(postgres.jdbcUrl(), properties);
        long backend = Long.parseLong(query("select pg_backend_pid()").get(0).get(0));
        this.postmaster = Long.parseLong(stat(backend)[1]); // the backend's parent
    }

    /** The counters now. */
    Snapshot snapshot() throws SQLException {
        Map<Long, String> roles = new HashMap<>();
        for (List<String> row : query("select pid, backend_type, coalesce(application_name, '') from pg_stat_activity")) {
            String role = switch (row.get(2)) {
                case InsertWriter.APPLICATION_NAME -> "writer";
                case APPLICATION_NAME -> "monitor";
                default -> ("client backend".equals(row.get(1)) || "walsender".equals(row.get(1))) ? "feed" : "other";
            };
            roles.put(Long.parseLong(row.get(0)), role);
        }
        Map<Long, Long> ticks = new HashMap<>();
        long total = 0;
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : (Iterable<Path>) processes::iterator) {
                String name = process.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                String[] fields = stat(pid);
                if (fields.length == 0) {
                    continue; // ended meanwhile: its time is in the postmaster's cutime
                }
                long own = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                if (pid == this.postmaster) {
                    total += own + Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
                }
                else if (Long.parseLong(fields[1]) == this.postmaster) {
                    total += own;
                    ticks.put(pid, own);
                }
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot read /proc", ex);
        }
        long calls = 0;
        long rows = 0;
        double execMillis = 0;
        for (List<String> row : query("select coalesce(sum(calls), 0), coalesce(sum(rows), 0),"
                + " coalesce(sum(total_exec_time), 0) from pg_stat_statements where lower(query) = '"
                + POLL_QUERY + "'")) {
            calls = Long.parseLong(row.get(0));
            rows = Long.parseLong(row.get(1));
            execMillis = Double.parseDouble(row.get(2));
        }
        long jvmCpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new Snapshot(System.nanoTime(), total, ticks, roles, calls, rows, execMillis, jvmCpu);
    }

    /**
     * The counters at one moment.
     *
     * @param ticks CPU clock ticks of each PostgreSQL child process
     * @param roles what each backend is: {@code writer}, {@code feed}, {@code monitor}, {@code other}
     */
    record Snapshot(long nanos, long totalTicks, Map<Long, Long> ticks, Map<Long, String> roles, long pollCalls,
            long pollRows, double pollExecMillis, long jvmCpuNanos) {

        /** What was spent from {@code before} to this snapshot. */
        Spent since(Snapshot before) {
            double seconds = (this.nanos - before.nanos) / 1e9;
            Map<String, Long> byRole = new HashMap<>();
            before.ticks.forEach((pid, then) -> {
                Long now = this.ticks.get(pid);
                if (now != null) {
                    byRole.merge(before.roles.getOrDefault(pid, "other"), now - then, Long::sum);
                }
            });
            return new Spent(seconds, millis(this.totalTicks - before.totalTicks) / seconds,
                    millis(byRole.getOrDefault("writer", 0L)) / seconds,
                    millis(byRole.getOrDefault("feed", 0L)) / seconds,
                    this.pollCalls - before.pollCalls, this.pollRows - before.pollRows,
                    this.pollExecMillis - before.pollExecMillis,
                    (this.jvmCpuNanos - before.jvmCpuNanos) / 1e6 / seconds);
        }

        private static double millis(long ticks) {
            return ticks * 1000.0 / CLOCK_TICKS;
        }
    }

    /**
     * Spent in a window.
     *
     * @param dbCpu all PostgreSQL processes, CPU ms per second
     * @param writerCpu the writer's backend
     * @param feedCpu the feed's backends (its polling connection; or its WAL sender and connections)
     * @param pollExecMillis execution time of the polls, summed ({@code pg_stat_statements})
     * @param jvmCpu this JVM (writer, feed and filter), CPU ms per second
     */
    record Spent(double seconds, double dbCpu, double writerCpu, double feedCpu, long polls, long pollRows,
            double pollExecMillis, double jvmCpu) {
    }

    List<List<String>> query(String sql) throws SQLException {
        try (Statement statement = this.connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            int columns = rows.getMetaData().getColumnCount();
            List<List<String>> result = new ArrayList<>();
            while (rows.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(String.valueOf(rows.getString(i)));
                }
                result.add(row);
            }
            return result;
        }
    }

    void execute(String sql) throws SQLException {
        try (Statement statement = this.connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The fields of {@code /proc/PID/stat} after the command's name (index 0 is the state); none if it ended. */
    private static String[] stat(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        }
        catch (IOException ex) { // ended meanwhile
            return new String[0];
        }
    }

    private static long clockTicks() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).trim();
            getconf.waitFor();
            return Long.parseLong(out);
        }
        catch (IOException | NumberFormatException ex) {
            return 100;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    @Override
    public void close() throws SQLException {
        this.connection.close();
    }
}
