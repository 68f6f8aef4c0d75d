package io.bloomguard.benchmarks.feed;

import io.bloomguard.testsupport.postgres.PostgresServerProcess;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The other service: on a connection of its own, inserts {@code rowsPerTick} rows into {@code users} every
 * {@code tick} (one auto-committed statement each time, so each tick is one small transaction), on a fixed
 * schedule that catches up after a stall, until it has written {@code rows} rows or the time is up. It keeps every
 * id it inserted.
 */
final class InsertWriter extends Thread {

    static final String APPLICATION_NAME = "bloom-guard-bench writer";

    private static final String INSERT = "insert into users (name) select 'user-' || g from generate_series(1, ?) g"
            + " returning id";

    private final PostgresServerProcess postgres;

    private final int rowsPerTick;

    private final long tickNanos;

    private final long rows;

    private final long deadlineNanos;

    private final AtomicLong inserted = new AtomicLong();

    private final AtomicLong mostBehindNanos = new AtomicLong();

    private long[] ids = new long[1 << 16];

    private volatile int idCount;

    private volatile @Nullable Exception failure;

    /**
     * @param rowsPerSecond the rate
     * @param rowsPerTick rows per statement; the tick is {@code rowsPerTick / rowsPerSecond}
     * @param seconds how long it writes; it stops after {@code rowsPerSecond × seconds} rows, or 5 s past that time
     */
    InsertWriter(PostgresServerProcess postgres, int rowsPerSecond, int rowsPerTick, int seconds) {
        super("external-writer");
        this.postgres = postgres;
        this.rowsPerTick = rowsPerTick;
        this.tickNanos = TimeUnit.SECONDS.toNanos(1) * rowsPerTick / rowsPerSecond;
        this.rows = (long) rowsPerSecond * seconds;
        this.deadlineNanos = TimeUnit.SECONDS.toNanos(seconds + 5L);
    }

    @Override
    public void run() {
        Properties properties = new Properties();
        properties.setProperty("user", this.postgres.username());
        properties.setProperty("password", this.postgres.password());
        properties.setProperty("ApplicationName", APPLICATION_NAME);
        try (Connection connection = DriverManager.getConnection(this.postgres.jdbcUrl(), properties);
                PreparedStatement insert = connection.prepareStatement(INSERT)) {
            long start = System.nanoTime();
            long next = start;
            while (this.inserted.get() < this.rows && System.nanoTime() - start < this.deadlineNanos) {
                int count = (int) Math.min(this.rowsPerTick, this.rows - this.inserted.get());
                insert.setInt(1, count);
                try (ResultSet result = insert.executeQuery()) {
                    while (result.next()) {
                        keep(result.getLong(1));
                    }
                }
                this.inserted.addAndGet(count);
                next += this.tickNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                else {
                    this.mostBehindNanos.accumulateAndGet(-wait, Math::max);
                }
            }
        }
        catch (SQLException | RuntimeException ex) {
            this.failure = ex;
        }
    }

    private void keep(long id) {
        if (this.idCount == this.ids.length) {
            this.ids = Arrays.copyOf(this.ids, this.ids.length * 2);
        }
        this.ids[this.idCount] = id;
        this.idCount = this.idCount + 1;
    }

    /** Rows inserted (committed) so far. */
    long inserted() {
        return this.inserted.get();
    }

    /** The most the writer fell behind its schedule, in milliseconds. */
    double mostBehindMillis() {
        return this.mostBehindNanos.get() / 1e6;
    }

    /** Every id inserted; call after {@link #join()}. */
    long[] ids() {
        return Arrays.copyOf(this.ids, this.idCount);
    }

    /** Waits for the end of the writing; throws if it failed. */
    void finish() throws InterruptedException {
        join();
        Exception failed = this.failure;
        if (failed != null) {
            throw new IllegalStateException("The writer failed after " + inserted() + " rows: " + failed, failed);
        }
    }
}
