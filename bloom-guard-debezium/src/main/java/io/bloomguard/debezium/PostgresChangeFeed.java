package io.bloomguard.debezium;

import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.FeedSink;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.connect.source.SourceRecord;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Follows one table through PostgreSQL logical replication ({@code pgoutput}), with Debezium's embedded engine:
 * inserts and updates become added keys, deletes removed ones, each with its commit time, in commit order; each
 * batch the engine hands over becomes one {@link io.bloomguard.feed.FeedBatch}, whose position is the last record's
 * offset. The engine confirms a position to the slot only after {@link FeedSink#accept} returned for it, so the slot
 * keeps every change the filter has not got yet.
 *
 * <ul>
 * <li><b>Start</b>: from {@code null}, the publication and the slot are made (or the slot moved to the present)
 * before {@link #start} returns; from a position, the slot must still be there and not confirmed past it, else
 * {@link FeedSink#lost}. Debezium takes no snapshot ({@code snapshot.mode=no_data}): the filter's preload reads the
 * rows that exist.</li>
 * <li><b>Freshness</b>: every {@code heartbeat.interval.ms} (1 s) the feed writes a logical decoding message
 * ({@code pg_logical_emit_message}) stamped with the time it was sent; the stream hands it over after every
 * transaction committed before it, so when it arrives the filter is current as of that time, even while the table
 * has no changes. (Debezium's heartbeats keep the slot moving, but say only that nothing was pending in the
 * connection.)</li>
 * <li><b>Failures</b>: the engine stops on an error (the database restarted, the connection dropped); the feed reports
 * {@link FeedSink#failing} and starts it again from the last position delivered, with backoff. A slot dropped or
 * invalidated meanwhile is found before that restart and reported as {@link FeedSink#lost}.</li>
 * </ul>
 *
 * <p>After {@link FeedSink#lost} the feed has stopped; {@link #start} may be called on it again. Created by
 * {@link PostgresChangeFeedFactory}; the database's side is in {@code docs/change-feeds-postgres.md}.
 *
 * @since 0.1.0
 */
public final class PostgresChangeFeed implements ChangeFeed {

    private static final Log logger = LogFactory.getLog(PostgresChangeFeed.class);

    private static final Duration FIRST_RETRY = Duration.ofMillis(250);

    private static final Duration LAST_RETRY = Duration.ofSeconds(5);

    /** How long {@link #close()} waits for the engine to hand over its batch and stop. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final PostgresFeedSettings settings;

    private final ReplicationSlot slot;

    private final FreshnessProbe probe;

    private final Duration heartbeat;

    private final CountDownLatch closing = new CountDownLatch(1);

    private final Object lock = new Object();

    private @Nullable Thread supervisor;

    private @Nullable DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;

    PostgresChangeFeed(PostgresFeedSettings settings) {
        this.settings = settings;
        this.slot = new ReplicationSlot(settings);
        this.heartbeat = heartbeat(settings);
        this.probe = new FreshnessProbe(this.slot, "bloom_guard_probe_" + settings.slot(), this.heartbeat);
    }

    private static Duration heartbeat(PostgresFeedSettings settings) {
        String value = settings.properties().getOrDefault("heartbeat.interval.ms", "1000");
        try {
            long millis = Long.parseLong(value.trim());
            if (millis > 0) {
                return Duration.ofMillis(millis);
            }
        }
        catch (NumberFormatException ex) {
            // Said below.
        }
        throw new IllegalArgumentException("bloom-guard.filters." + settings.filter()
                + ".feed.postgres.properties.heartbeat.interval.ms must be a positive number of milliseconds; was '"
                + value + "'");
    }

    @Override
    public void start(@Nullable String from, FeedSink sink) {
        synchronized (this.lock) {
            // Once it reported its position lost the feed has stopped, and may be started again (from the present).
            Thread previous = this.supervisor;
            if (isClosed() || (previous != null && previous.isAlive() && previous != Thread.currentThread())) {
                throw new IllegalStateException("Feed " + description() + " is running or closed");
            }
            FeedPosition position;
            try {
                position = from == null ? null : FeedPosition.parse(from);
            }
            catch (IllegalArgumentException ex) {
                sink.lost("the saved position is not a PostgreSQL feed's (" + ex.getMessage() + ")");
                return;
            }
            Instant startedAt = Instant.now();
            @Nullable Exception notReady = null;
            if (position == null) {
                // Before returning: every change committed after start() returns must reach the feed.
                try (Connection connection = this.slot.connect()) {
                    this.slot.createOrMoveToPresent(connection);
                }
                catch (SQLException | RuntimeException ex) {
                    notReady = ex;
                }
            }
            Instant currentAsOf = position == null ? startedAt
                    : position.committedAt() != null ? position.committedAt() : Instant.EPOCH;
            Deliveries deliveries = new Deliveries(sink, this.settings, this.probe.prefix(), position, currentAsOf,
                    this::isClosed);
            @Nullable Exception failure = notReady;
            Thread thread = new Thread(() -> supervise(deliveries, failure), "bloom-guard-feed-" + this.settings.filter());
            thread.setDaemon(true);
            this.supervisor = thread;
            thread.start();
            this.probe.start();
        }
    }

    @Override
    public String description() {
        return "postgres logical replication of " + this.settings.schema() + "." + this.settings.table() + " (slot "
                + this.settings.slot() + ", publication " + this.settings.publication() + ", " + this.settings.host()
                + ":" + this.settings.port() + "/" + this.settings.database() + ")";
    }

    @Override
    public void close() {
        @Nullable DebeziumEngine<?> running;
        @Nullable Thread thread;
        synchronized (this.lock) {
            this.closing.countDown();
            running = this.engine;
            thread = this.supervisor;
        }
        this.probe.close();
        if (running != null) {
            try {
                running.close();
            }
            catch (Exception ex) {
                logger.warn("Closing Debezium's engine of feed " + this.settings.filter() + " failed", ex);
            }
        }
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(CLOSE_TIMEOUT.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean isClosed() {
        return this.closing.getCount() == 0;
    }

    /** Runs the engine until the feed is closed, starting it again after each failure; stops on a lost position. */
    private void supervise(Deliveries deliveries, @Nullable Exception notReady) {
        Duration retry = FIRST_RETRY;
        // A fresh start whose slot could not be made in start(): changes since then were not kept.
        boolean madeLate = notReady != null;
        if (notReady != null) {
            deliveries.sink().failing(notReady);
            retry = pause(retry);
        }
        while (!isClosed()) {
            try (Connection connection = this.slot.connect()) {
                if (madeLate) {
                    this.slot.createOrMoveToPresent(connection);
                    this.probe.close();
                    deliveries.sink().lost("the feed could not make its replication slot when it started ("
                            + notReady + "): changes committed until " + Instant.now() + " may be missed");
                    return;
                }
                String why = this.slot.whyNotResumable(connection, deliveries.lastPosition());
                if (why != null) {
                    this.probe.close();
                    deliveries.sink().lost(why);
                    return;
                }
            }
            catch (SQLException | RuntimeException ex) {
                if (!isClosed()) {
                    deliveries.sink().failing(ex);
                    retry = pause(retry);
                }
                continue;
            }
            int delivered = deliveries.batches();
            Throwable error = runEngine(deliveries);
            if (isClosed()) {
                return;
            }
            if (deliveries.batches() > delivered) {
                // It streamed before failing: the next failure is a new one, retried soon.
                retry = FIRST_RETRY;
            }
            deliveries.sink().failing(error instanceof Exception exception ? exception
                    : new IllegalStateException("Debezium's engine stopped: " + error, error));
            retry = pause(retry);
        }
    }

    /** Runs one engine from the last position delivered, until it stops; returns why it stopped. */
    private Throwable runEngine(Deliveries deliveries) {
        String name = "bloom-guard-" + this.settings.filter() + "-" + RUNS.incrementAndGet();
        AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        DebeziumEngine<RecordChangeEvent<SourceRecord>> built;
        try {
            built = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(DebeziumProperties.of(this.settings, name, this.probe.prefix(), this.heartbeat))
                .using((success, message, error) -> failure.set(success ? null
                        : error != null ? error : new IllegalStateException(message)))
                .notifying(deliveries::handleBatch)
                .build();
        }
        catch (RuntimeException ex) {
            // A property in feed.postgres.properties Debezium refuses, for one.
            return ex;
        }
        FeedPosition position = deliveries.lastPosition();
        if (position != null) {
            SeededOffsetStore.seed(name, position);
        }
        try {
            synchronized (this.lock) {
                if (isClosed()) {
                    return new IllegalStateException("closed");
                }
                this.engine = built;
            }
            built.run();
        }
        finally {
            SeededOffsetStore.forget(name);
            synchronized (this.lock) {
                this.engine = null;
            }
            try {
                built.close();
            }
            catch (Exception ex) {
                logger.debug("Closing a stopped engine failed", ex);
            }
        }
        Throwable error = failure.get();
        return error != null ? error : new IllegalStateException("Debezium's engine stopped without an error");
    }

    /** Waits {@code delay} or until closed; returns the next, longer, delay. */
    private Duration pause(Duration delay) {
        try {
            this.closing.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            this.closing.countDown();
        }
        Duration next = delay.multipliedBy(2);
        return next.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : next;
    }

    /** Debezium's connector and engine properties for one run. */
    private static final class DebeziumProperties {

        static Properties of(PostgresFeedSettings settings, String name, String probePrefix, Duration heartbeat) {
            Properties properties = new Properties();
            properties.setProperty("name", name);
            properties.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
            properties.setProperty("offset.storage", SeededOffsetStore.class.getName());
            // Commit after every batch: a batch is marked processed only once the sink has it.
            properties.setProperty("offset.flush.interval.ms", "0");
            properties.setProperty("topic.prefix", settings.slot());
            properties.setProperty("database.hostname", settings.host());
            properties.setProperty("database.port", Integer.toString(settings.port()));
            properties.setProperty("database.dbname", settings.database());
            if (settings.username() != null) {
                properties.setProperty("database.user", settings.username());
            }
            if (settings.password() != null) {
                properties.setProperty("database.password", settings.password());
            }
            properties.setProperty("plugin.name", "pgoutput");
            properties.setProperty("slot.name", settings.slot());
            properties.setProperty("publication.name", settings.publication());
            properties.setProperty("publication.autocreate.mode", "filtered");
            properties.setProperty("table.include.list", quoteRegex(settings.schema() + "." + settings.table()));
            properties.setProperty("snapshot.mode", "no_data");
            properties.setProperty("heartbeat.interval.ms", Long.toString(heartbeat.toMillis()));
            // The engine waits this long for a batch to fill (Debezium's default, 500 ms, is most of the lag).
            properties.setProperty("poll.interval.ms", "50");
            properties.setProperty("message.prefix.include.list", quoteRegex(probePrefix));
            properties.setProperty("tombstones.on.delete", "false");
            // Errors stop the engine; the feed reports them and starts it again from the position it delivered.
            properties.setProperty("errors.max.retries", "0");
            properties.setProperty("slot.max.retries", "3");
            properties.setProperty("slot.retry.delay.ms", "1000");
            properties.putAll(settings.properties());
            return properties;
        }

        private static String quoteRegex(String literal) {
            return literal.replaceAll("([\\\\.\\[\\]{}()*+?^$|])", "\\\\$1");
        }
    }
}
