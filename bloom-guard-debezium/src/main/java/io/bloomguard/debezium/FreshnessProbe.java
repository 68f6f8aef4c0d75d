package io.bloomguard.debezium;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Writes a logical decoding message, stamped with the time it is sent, into the WAL at a fixed interval. Logical
 * decoding hands over changes in commit order, and a non-transactional message at its place in the WAL: when the
 * feed receives the probe sent at T, every transaction that committed before T was handed over before it, so the
 * filter is current as of T, whether the table changed or not.
 */
final class FreshnessProbe implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(FreshnessProbe.class);

    private final ReplicationSlot slot;

    private final String prefix;

    private final Duration interval;

    private @Nullable ScheduledExecutorService scheduler;

    private @Nullable Connection connection;

    private boolean warned;

    FreshnessProbe(ReplicationSlot slot, String prefix, Duration interval) {
        this.slot = slot;
        this.prefix = prefix;
        this.interval = interval;
    }

    /** The messages' prefix, which tells this feed's probes from others'. */
    String prefix() {
        return this.prefix;
    }

    synchronized void start() {
        if (this.scheduler != null) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "bloom-guard-feed-probe-" + this.prefix);
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(this::send, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
        this.scheduler = started;
    }

    private void send() {
        try {
            Connection current = this.connection;
            if (current == null) {
                current = this.slot.connect();
                this.connection = current;
            }
            // The time is taken before the message is written: what committed before it lies before it in the WAL.
            long sentAt = Instant.now().toEpochMilli();
            try (PreparedStatement emit = current.prepareStatement("select pg_logical_emit_message(false, ?, ?)")) {
                emit.setString(1, this.prefix);
                emit.setString(2, Long.toString(sentAt));
                emit.execute();
            }
            this.warned = false;
        }
        catch (SQLException | RuntimeException ex) {
            closeConnection();
            // The engine reports the database being down; this says only why freshness stands still.
            if (!this.warned) {
                logger.warn("Cannot write the freshness probe " + this.prefix + " (the feed's lag grows while the "
                        + "table is idle): " + ex.getMessage());
                this.warned = true;
            }
        }
    }

    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            running = this.scheduler;
            this.scheduler = null;
        }
        if (running != null) {
            running.shutdownNow();
            try {
                running.awaitTermination(5, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        closeConnection();
    }

    private void closeConnection() {
        Connection current = this.connection;
        this.connection = null;
        if (current != null) {
            try {
                current.close();
            }
            catch (SQLException ex) {
                // Going away anyway.
            }
        }
    }
}
