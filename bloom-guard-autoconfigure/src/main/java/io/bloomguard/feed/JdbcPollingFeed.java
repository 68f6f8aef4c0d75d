package io.bloomguard.feed;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code feed.type: jdbc}: polls a query for the rows whose watermark (a timestamp the writers set at each insert
 * and key change) is past {@code :since}, on any database. Each poll reads back {@code overlap} behind the highest
 * watermark seen: a transaction that stamped its rows before a poll and committed after it (a timestamp is taken
 * when the row is written, or when its transaction began, not when it commits) is then still found by a later poll,
 * as long as it commits within the overlap. Rows seen before are not handed over again.
 *
 * <p>What can be detected is reported: a new row found behind rows stamped later (a late commit; a WARN when it
 * comes within half the overlap of being missed), rows at or below {@code :since} (the query does not filter by
 * it), a watermark ahead of this instance's clock by more than the overlap (a writer's clock, or a stamp, in the
 * future: rows stamped correctly meanwhile would fall behind it), and a query that fails.
 *
 * <p>Internal: public for bloom-guard's auto-configuration, not part of its API; it may change in any version.
 * @hidden
 */
public final class JdbcPollingFeed implements ChangeFeed {

    private static final Log logger = LogFactory.getLog(JdbcPollingFeed.class);

    /** The named parameter the query must use. */
    public static final String SINCE = "since";

    private final String filter;
    private final String query;
    private final NamedParameterJdbcTemplate jdbc;
    private final Duration interval;
    private final Duration overlap;
    private final Clock clock;
    private @Nullable ScheduledExecutorService poller;

    // Touched by the poller thread only.
    private Instant since = Instant.MIN;
    private Instant highest = Instant.MIN;
    /** Rows above {@link #since} handed over already, by key: their watermark when seen. */
    private final Map<Object, Instant> window = new HashMap<>();
    private boolean warnedUnfiltered;
    private boolean warnedAhead;
    private Duration latestCommit = Duration.ZERO;

    public JdbcPollingFeed(String filter, DataSource dataSource, FeedSettings.Jdbc settings, Clock clock) {
        String sql = settings.query();
        String property = "bloom-guard.filters." + filter + ".feed.jdbc.query";
        if (sql == null || sql.isBlank()) {
            throw new IllegalArgumentException(property + " is required with feed.type: jdbc: a query whose first"
                    + " column is the key and second the watermark, e.g. \"select id, updated_at from users where"
                    + " updated_at > :since\"");
        }
        if (!sql.contains(":" + SINCE)) {
            throw new IllegalArgumentException(property + " must filter by the :since parameter (\"... where"
                    + " updated_at > :since\"); it is \"" + sql + "\"");
        }
        if (settings.interval().isNegative() || settings.interval().isZero()) {
            throw new IllegalArgumentException("bloom-guard.filters." + filter + ".feed.jdbc.interval must be"
                    + " positive; it is " + settings.interval());
        }
        if (settings.overlap().isNegative()) {
            throw new IllegalArgumentException("bloom-guard.filters." + filter + ".feed.jdbc.overlap must not be"
                    + " negative; it is " + settings.overlap());
        }
        this.filter = filter;
        this.query = sql;
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.interval = settings.interval();
        this.overlap = settings.overlap();
        this.clock = clock;
    }

    @Override
    public void start(@Nullable String from, FeedSink sink) {
        if (!resume(from, sink)) {
            return;
        }
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread poll = new Thread(runnable, "bloom-guard-feed-" + filter);
            poll.setDaemon(true);
            return poll;
        });
        poller = thread;
        thread.scheduleWithFixedDelay(() -> poll(sink), 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Sets the watermark to resume from: {@code from}, or (from the present) {@code overlap} before this instance's
     * clock, so that a transaction that stamped its rows just before is still found.
     *
     * @return whether it can resume; if not, the sink was told the position is lost
     */
    boolean resume(@Nullable String from, FeedSink sink) {
        if (from == null) {
            since = clock.instant().minus(overlap);
        }
        else {
            try {
                since = Instant.parse(from);
            }
            catch (DateTimeParseException ex) {
                sink.lost("the saved position '" + from + "' is no watermark of the jdbc feed");
                return false;
            }
        }
        highest = since;
        return true;
    }

    /** One poll: hands over the rows not seen before, then moves the watermark. Never throws (that would stop it). */
    void poll(FeedSink sink) {
        Instant started = clock.instant();
        List<Row> rows;
        try {
            rows = jdbc.query(query, new MapSqlParameterSource(SINCE, Timestamp.from(since)), this::row);
        }
        catch (RuntimeException ex) {
            sink.failing(ex);
            return;
        }
        List<FeedChange> changes = new ArrayList<>();
        Instant top = highest;
        for (Row row : rows) {
            Instant seen = window.get(row.key());
            if (seen != null && !row.watermark().isAfter(seen)) {
                continue;
            }
            noteLateness(row);
            if (!row.watermark().isAfter(since)) {
                warnUnfiltered(row);
            }
            changes.add(FeedChange.added(row.key(), row.watermark()));
            if (row.watermark().isAfter(top)) {
                top = row.watermark();
            }
        }
        warnIfAhead(top, started);
        Instant nextSince = top.minus(overlap).isAfter(since) ? top.minus(overlap) : since;
        try {
            sink.accept(new FeedBatch(changes, started, nextSince.toString()));
        }
        catch (RuntimeException ex) {
            sink.failing(ex); // nothing moved: the next poll hands the same rows over
            return;
        }
        for (FeedChange change : changes) {
            window.put(change.key(), change.committedAt());
        }
        highest = top;
        since = nextSince;
        window.values().removeIf(watermark -> !watermark.isAfter(nextSince));
    }

    private Row row(ResultSet rows, int number) throws SQLException {
        Object key = JdbcUtils.getResultSetValue(rows, 1);
        Timestamp watermark;
        try {
            watermark = rows.getTimestamp(2);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("bloom-guard.filters." + filter + ".feed.jdbc.query: the second column"
                    + " must be the watermark, a timestamp (" + ex.getMessage() + ")", ex);
        }
        if (key == null || watermark == null) {
            throw new IllegalStateException("bloom-guard.filters." + filter + ".feed.jdbc.query returned a row"
                    + " without a key or a watermark (key " + key + ", watermark " + watermark + ")");
        }
        return new Row(key, watermark.toInstant());
    }

    /** A new row stamped before the highest watermark seen committed that much after its stamp. */
    private void noteLateness(Row row) {
        if (!row.watermark().isBefore(highest)) {
            return;
        }
        Duration late = Duration.between(row.watermark(), highest);
        if (late.compareTo(latestCommit) > 0) {
            latestCommit = late;
            if (late.multipliedBy(2).compareTo(overlap) > 0) {
                logger.warn("Filter '" + filter + "': its jdbc feed found a row (key " + row.key() + ") committed"
                        + " at least " + late + " after its watermark; rows committing later than feed.jdbc.overlap ("
                        + overlap + ") after their watermark are missed until a rebuild: raise the overlap above"
                        + " the longest writing transaction");
            }
        }
    }

    private void warnUnfiltered(Row row) {
        if (!warnedUnfiltered) {
            warnedUnfiltered = true;
            logger.warn("Filter '" + filter + "': its feed.jdbc.query returned a row (key " + row.key() + ") with a"
                    + " watermark " + row.watermark() + " at or below :since (" + since + "): the query does not"
                    + " filter by its watermark, and every poll reads more than it needs");
        }
    }

    private void warnIfAhead(Instant top, Instant now) {
        if (!warnedAhead && top.isAfter(now.plus(overlap))) {
            warnedAhead = true;
            logger.warn("Filter '" + filter + "': its jdbc feed read a watermark " + top + ", ahead of this"
                    + " instance's clock (" + now + ") by more than feed.jdbc.overlap: a row stamped in the future"
                    + " (or a writer's clock ahead) moves the watermark past rows stamped correctly meanwhile, which"
                    + " are then missed until a rebuild");
        }
    }

    /** The longest a new row was found behind rows stamped after it: how late transactions commit, at least. */
    Duration latestCommit() {
        return latestCommit;
    }

    @Override
    public String description() {
        return "jdbc polling every " + interval.toString().substring(2).toLowerCase(java.util.Locale.ROOT)
                + ", overlap " + overlap.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public void close() {
        ScheduledExecutorService thread = poller;
        if (thread != null) {
            thread.shutdown();
            try {
                thread.awaitTermination(interval.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private record Row(Object key, Instant watermark) {
    }
}
