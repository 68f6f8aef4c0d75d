package io.bloomguard.benchmarks.feed;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.bloomguard.testsupport.postgres.PostgresServerProcess;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The change feeds at 1,000 external inserts a second: each change's lag from its commit (the {@code jdbc} feed: its
 * watermark, {@code created_at}) to its key in the filter, p50, p99 and max, every inserted row checked in the filter
 * at the end, and what the feed costs the database, against the same inserts with no feed (the baseline, measured in
 * the same run).
 *
 * <p>It starts a PostgreSQL ({@link PostgresServerProcess}: {@code wal_level=logical}; {@code pg_stat_statements}
 * loaded through {@code ALTER SYSTEM} and a restart), creates
 * {@code users(id bigserial primary key, name text, created_at timestamptz not null default now())} with an index
 * on {@code created_at}, then runs each phase in turn: a writer on its own connection inserts 10 rows every 10 ms
 * (one auto-committed statement each), while a local filter follows the feed under test; {@code warm-up} seconds (for
 * a jdbc feed at least its overlap + 5 s, until each poll reads as much as it will), then {@code measured} seconds
 * whose changes' lags and database CPU count; the writer goes on 2 s past the window. After the writer stops, every id it inserted
 * (warm-up included) must reach the filter within a minute: the ones that do not are printed, and make the run fail.
 *
 * <p>Phases: {@code baseline} (the writer alone), {@code jdbc-<interval>} (the polling feed, query
 * {@value FollowedFilter#JDBC_QUERY}, overlap 30 s), {@code postgres} (logical replication through Debezium).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.feed.ChangeFeedLag [warm-up s
 * [measured s [phases]]]}; defaults 10, 60, {@code baseline,jdbc-1s,postgres,jdbc-100ms,baseline} (about 7 minutes).
 */
public final class ChangeFeedLag {

    private static final int ROWS_PER_SECOND = 1_000;

    private static final int ROWS_PER_TICK = 10;

    private static final Duration OVERLAP = Duration.ofSeconds(30);

    private static final Duration CATCH_UP = Duration.ofMinutes(1);

    private ChangeFeedLag() {
    }

    /** One phase's figures. */
    private record Result(String phase, String feed, DatabaseCost.Spent spent, double insertedPerSecond,
            double writerBehindMillis, long @Nullable [] lags, double firstHalfP99, double secondHalfP99,
            double freshnessMax, long inserted, long found, long applied, List<Long> missing, double catchUpMillis) {
    }

    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        List<String> phases = List.of((args.length > 2 ? args[2] : "baseline,jdbc-1s,postgres,jdbc-100ms,baseline")
            .split(","));
        quietLogs();
        System.out.printf("%s; %s %s; %d inserts/s (%d rows every %d ms); %d s warm-up (jdbc"
                + " feeds: at least %d s), %d s measured per phase%n", cpuModel(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), ROWS_PER_SECOND, ROWS_PER_TICK, 1000 * ROWS_PER_TICK
                        / ROWS_PER_SECOND, warmup, OVERLAP.toSeconds() + 5, measured);
        List<Result> results = new ArrayList<>();
        try (PostgresServerProcess postgres = PostgresServerProcess.start()) {
            postgres.execute("alter system set shared_preload_libraries = 'pg_stat_statements'");
            postgres.restart();
            postgres.execute("create extension pg_stat_statements",
                    "create table users (id bigserial primary key, name text,"
                            + " created_at timestamptz not null default now())",
                    "create index users_created_at on users (created_at)");
            System.out.println("PostgreSQL " + postgres.query("show server_version").get(0) + " on port "
                    + postgres.port());
            try (DatabaseCost database = new DatabaseCost(postgres)) {
                for (String phase : phases) {
                    Result result = run(phase.trim(), postgres, database, warmup, measured);
                    results.add(result);
                    print(result);
                }
            }
        }
        summary(results);
        if (results.stream().anyMatch(result -> !result.missing().isEmpty())) {
            System.out.println("FAILED: inserted rows missing from the filter");
            System.exit(1);
        }
    }

    private static Result run(String phase, PostgresServerProcess postgres, DatabaseCost database, int warmup,
            int measured) throws Exception {
        System.out.printf("%n== %s ==%n", phase);
        try (FollowedFilter followed = follow(phase, postgres)) {
            if (followed != null) {
                followed.startAndAwaitFirstBatch();
                System.out.println("  feed: " + followed.description());
            }
            // A jdbc feed reads more each poll until the writer has written for one overlap: measure after that.
            int warm = phase.startsWith("jdbc-") ? Math.max(warmup, (int) OVERLAP.toSeconds() + 5) : warmup;
            // It writes on for a moment after the window, so that its backend is still there to be measured.
            InsertWriter writer = new InsertWriter(postgres, ROWS_PER_SECOND, ROWS_PER_TICK, warm + measured + 2);
            writer.start();
            Thread.sleep(warm * 1000L);
            DatabaseCost.Snapshot before = database.snapshot();
            long insertedBefore = writer.inserted();
            if (followed != null) {
                followed.measure(true);
            }
            long end = System.nanoTime() + measured * 1_000_000_000L;
            long freshness = 0; // the filter's own lag (FeedStatus.lag), sampled: whether it stays bounded
            while (System.nanoTime() < end) {
                if (followed != null) {
                    Duration lag = followed.status().lag();
                    freshness = Math.max(freshness, lag == null ? Long.MAX_VALUE : lag.toNanos());
                }
                Thread.sleep(100);
            }
            DatabaseCost.Spent spent = database.snapshot().since(before);
            double insertedPerSecond = (writer.inserted() - insertedBefore) / spent.seconds();
            if (followed != null) {
                followed.measure(false);
            }
            writer.finish();
            long[] ids = writer.ids();
            if (followed == null) {
                return new Result(phase, "none", spent, insertedPerSecond, writer.mostBehindMillis(), null, 0, 0, 0,
                        ids.length, 0, 0, List.of(), 0);
            }
            long caughtUp = awaitAll(followed.delivered(), ids);
            List<Long> missing = new ArrayList<>();
            for (long id : ids) {
                if (!followed.delivered().contains(id) || !followed.filter().mightContain(id)) {
                    missing.add(id);
                }
            }
            long[] lags = followed.lags();
            long[] at = followed.appliedAt();
            long middle = at.length == 0 ? 0 : at[0] + (at[at.length - 1] - at[0]) / 2;
            long[] first = half(lags, at, middle, true);
            long[] second = half(lags, at, middle, false);
            Arrays.sort(lags);
            return new Result(phase, followed.description(), spent, insertedPerSecond, writer.mostBehindMillis(),
                    lags, percentile(first, 0.99), percentile(second, 0.99), freshness / 1e6, ids.length,
                    ids.length - missing.size(), followed.status().counts().added(), missing, caughtUp / 1e6);
        }
        finally {
            if (phase.equals("postgres")) {
                dropSlot(database);
            }
        }
    }

    private static @Nullable FollowedFilter follow(String phase, PostgresServerProcess postgres) throws SQLException {
        if (phase.equals("baseline")) {
            return null;
        }
        if (phase.equals("postgres")) {
            return FollowedFilter.postgres(postgres);
        }
        if (phase.startsWith("jdbc-")) {
            String value = phase.substring("jdbc-".length());
            Duration interval = value.endsWith("ms")
                    ? Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)))
                    : Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
            return FollowedFilter.jdbc(postgres, interval, OVERLAP);
        }
        throw new IllegalArgumentException("Unknown phase '" + phase + "': baseline, jdbc-1s, jdbc-100ms, postgres");
    }

    /** Waits until every id is delivered, at most {@link #CATCH_UP}; returns how long that took, in nanoseconds. */
    private static long awaitAll(Set<Long> delivered, long[] ids) throws InterruptedException {
        long start = System.nanoTime();
        int next = 0;
        while (System.nanoTime() - start < CATCH_UP.toNanos()) {
            while (next < ids.length && delivered.contains(ids[next])) {
                next++;
            }
            if (next == ids.length) {
                return System.nanoTime() - start;
            }
            Thread.sleep(10);
        }
        return System.nanoTime() - start;
    }

    private static void dropSlot(DatabaseCost database) {
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                database.execute("select pg_drop_replication_slot(slot_name) from pg_replication_slots"
                        + " where slot_name = 'bloom_guard_users'");
                database.execute("drop publication if exists bloom_guard_users");
                return;
            }
            catch (SQLException ex) { // still active for a moment after the feed closed
                try {
                    Thread.sleep(200);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        System.out.println("  could not drop the replication slot bloom_guard_users");
    }

    private static long[] half(long[] lags, long[] at, long middle, boolean first) {
        return IntStream.range(0, lags.length)
            .filter(i -> (at[i] <= middle) == first)
            .mapToLong(i -> lags[i])
            .sorted()
            .toArray();
    }

    /** Nearest rank, in milliseconds, of sorted nanoseconds. */
    private static double percentile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(quantile * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    private static void print(Result result) {
        DatabaseCost.Spent spent = result.spent();
        System.out.printf(Locale.ROOT, "  inserted %.0f rows/s in the window (writer at most %.1f ms behind its"
                + " schedule); DB CPU %.1f ms/s (writer's backend %.1f, feed's backends %.1f); JVM CPU %.1f ms/s%n",
                result.insertedPerSecond(), result.writerBehindMillis(), spent.dbCpu(), spent.writerCpu(),
                spent.feedCpu(), spent.jvmCpu());
        if (spent.polls() > 0) {
            System.out.printf(Locale.ROOT, "  polls: %d in %.0f s, %.0f rows read per poll, %.2f ms DB execution per"
                    + " poll (%.1f ms/s)%n", spent.polls(), spent.seconds(), (double) spent.pollRows() / spent.polls(),
                    spent.pollExecMillis() / spent.polls(), spent.pollExecMillis() / spent.seconds());
        }
        long[] lags = result.lags();
        if (lags != null) {
            System.out.printf(Locale.ROOT, "  lag of %d changes: p50 %.1f ms, p99 %.1f ms, max %.1f ms (p99 first half"
                    + " %.1f, second half %.1f); the filter's lag at most %.0f ms%n", lags.length,
                    percentile(lags, 0.5), percentile(lags, 0.99), percentile(lags, 1.0), result.firstHalfP99(),
                    result.secondHalfP99(), result.freshnessMax());
            System.out.printf(Locale.ROOT, "  inserted %d rows, %d found in the filter, %d keys applied; all delivered"
                    + " %.0f ms after the writer stopped; missing: %s%n", result.inserted(), result.found(),
                    result.applied(), result.catchUpMillis(),
                    result.missing().isEmpty() ? "none" : result.missing().size() + " " + result.missing()
                        .subList(0, Math.min(20, result.missing().size())));
        }
    }

    private static void summary(List<Result> results) {
        double baseline = results.stream().filter(result -> result.lags() == null)
            .mapToDouble(result -> result.spent().dbCpu()).average().orElse(Double.NaN);
        System.out.printf("%n| phase | lag p50 ms | lag p99 ms | lag max ms | inserted / found | inserts/s"
                + " | DB CPU ms/s | vs baseline | feed's backends ms/s | rows read per poll | DB ms per poll"
                + " | JVM CPU ms/s |%n|---|---|---|---|---|---|---|---|---|---|---|---|%n");
        for (Result result : results) {
            DatabaseCost.Spent spent = result.spent();
            long[] lags = result.lags();
            String polls = spent.polls() > 0
                    ? String.format(Locale.ROOT, "%.0f | %.2f", (double) spent.pollRows() / spent.polls(),
                            spent.pollExecMillis() / spent.polls())
                    : "— | —";
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %.0f | %.1f | %s | %.1f | %s | %.1f |%n",
                    result.phase(), lags == null ? "—" : String.format(Locale.ROOT, "%.0f", percentile(lags, 0.5)),
                    lags == null ? "—" : String.format(Locale.ROOT, "%.0f", percentile(lags, 0.99)),
                    lags == null ? "—" : String.format(Locale.ROOT, "%.0f", percentile(lags, 1.0)),
                    lags == null ? result.inserted() + " / —" : result.inserted() + " / " + result.found(),
                    result.insertedPerSecond(), spent.dbCpu(),
                    String.format(Locale.ROOT, "%+.1f", spent.dbCpu() - baseline), spent.feedCpu(), polls,
                    spent.jvmCpu());
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("unknown CPU") + " × " + Runtime.getRuntime().availableProcessors();
        }
        catch (IOException ex) {
            return "unknown CPU";
        }
    }

    /** Debezium and Kafka Connect log each step at INFO; only their warnings matter here. */
    private static void quietLogs() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    }
}
