package io.bloomguard.benchmarks.feed;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.debezium.PostgresChangeFeedFactory;
import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FeedTarget;
import io.bloomguard.feed.FilterFeed;
import io.bloomguard.feed.JdbcPollingFeed;
import io.bloomguard.feed.WhenBehind;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.postgres.PostgresServerProcess;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A local filter of {@code users} ids, preloaded from the table, that follows one change feed as bloom-guard's
 * auto-configuration would set it up (without Spring): {@link FilterFeed} over the feed, with {@code max-lag} 30 s and
 * {@code when-behind: pass}. It records each applied change's lag ({@link FeedStatus#onChangeLag}) while measuring.
 */
final class FollowedFilter implements AutoCloseable {

    static final String JDBC_QUERY = "select id, created_at from users where created_at > :since";

    static final String JDBC_APPLICATION_NAME = "bloom-guard-bench jdbc feed";

    private static final Duration MAX_LAG = Duration.ofSeconds(30);

    private final NamedBloomFilter filter;

    private final RecordingFeed feed;

    private final FilterFeed filterFeed;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    private final @Nullable HikariDataSource dataSource;

    private final Object lagLock = new Object();

    private long[] lagNanos = new long[1 << 16];

    private long[] appliedAtNanos = new long[1 << 16];

    private int lags;

    private volatile boolean measuring;

    private FollowedFilter(NamedBloomFilter filter, ChangeFeed feed, FeedSettings settings,
            @Nullable HikariDataSource dataSource) {
        this.filter = filter;
        this.feed = new RecordingFeed(feed);
        this.dataSource = dataSource;
        this.filterFeed = new FilterFeed(filter, () -> this.feed, settings, null, this.scheduler, Clock.systemUTC());
        this.filterFeed.onChangeLag(this::record);
    }

    /** The jdbc feed: {@link #JDBC_QUERY} every {@code interval}, over a small Hikari pool. */
    static FollowedFilter jdbc(PostgresServerProcess postgres, Duration interval, Duration overlap)
            throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setUsername(postgres.username());
        config.setPassword(postgres.password());
        config.setMaximumPoolSize(2);
        config.setPoolName("jdbc-feed");
        config.addDataSourceProperty("ApplicationName", JDBC_APPLICATION_NAME);
        HikariDataSource dataSource = new HikariDataSource(config);
        FeedSettings settings = new FeedSettings("jdbc", MAX_LAG, WhenBehind.PASS,
                new FeedSettings.Jdbc(JDBC_QUERY, interval, overlap), noPostgres());
        ChangeFeed feed = new JdbcPollingFeed("users", dataSource, settings.jdbc(), Clock.systemUTC());
        return new FollowedFilter(preloaded(postgres), feed, settings, dataSource);
    }

    /** The postgres feed on {@code public.users}, key column {@code id}: slot and publication {@code bloom_guard_users}. */
    static FollowedFilter postgres(PostgresServerProcess postgres) throws SQLException {
        FeedSettings settings = new FeedSettings("postgres", MAX_LAG, WhenBehind.PASS,
                new FeedSettings.Jdbc(null, Duration.ofSeconds(1), Duration.ofSeconds(30)),
                new FeedSettings.Postgres("public.users", "id", null, null, postgres.jdbcUrl(), postgres.username(),
                        postgres.password(), Map.of()));
        ChangeFeed feed = new PostgresChangeFeedFactory(null, null, null)
            .create(new FeedTarget("users", false, false, settings)); // a local filter: a slot of its own
        return new FollowedFilter(preloaded(postgres), feed, settings, null);
    }

    private static FeedSettings.Postgres noPostgres() {
        return new FeedSettings.Postgres(null, "id", null, null, null, null, null, Map.of());
    }

    /** A local filter for 2·10⁶ keys at ε = 1%, holding every id in the table, READY. */
    private static NamedBloomFilter preloaded(PostgresServerProcess postgres) {
        FilterSpec spec = FilterSpec.builder("users").expectedSize(2_000_000).errorRate(0.01).build();
        RebuildableLocalFilter backend = new RebuildableLocalFilter(FilterSizing.of(2_000_000, 0.01), Duration.ZERO);
        NamedBloomFilter filter = new NamedBloomFilter(spec, backend, FilterState.LOADING);
        KeyFeed ids = batches -> {
            long count = 0;
            try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("select id from users")) {
                List<Object> batch = new ArrayList<>();
                while (rows.next()) {
                    batch.add(rows.getLong(1));
                    if (batch.size() == 10_000) {
                        batches.accept(batch);
                        count += batch.size();
                        batch.clear();
                    }
                }
                batches.accept(batch);
                return count + batch.size();
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        };
        filter.keySource(ids);
        ids.feed(filter::putAll);
        filter.finishLoading();
        return filter;
    }

    /** Starts the feed and waits for its first batch (at most a minute). */
    void startAndAwaitFirstBatch() throws InterruptedException {
        this.filterFeed.start();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (this.filterFeed.state() != FeedStatus.State.RUNNING) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The feed did not deliver within a minute: " + this.filterFeed.state()
                        + ", " + this.filterFeed.failure());
            }
            Thread.sleep(20);
        }
    }

    String description() {
        return this.filterFeed.description();
    }

    FeedStatus status() {
        return this.filterFeed;
    }

    NamedBloomFilter filter() {
        return this.filter;
    }

    /** Keys the filter took from the feed. */
    Set<Long> delivered() {
        return this.feed.delivered();
    }

    /** Whether each change's lag is kept from now on. */
    void measure(boolean on) {
        this.measuring = on;
    }

    private void record(Duration lag) {
        if (!this.measuring) {
            return;
        }
        synchronized (this.lagLock) {
            if (this.lags == this.lagNanos.length) {
                this.lagNanos = Arrays.copyOf(this.lagNanos, this.lags * 2);
                this.appliedAtNanos = Arrays.copyOf(this.appliedAtNanos, this.lags * 2);
            }
            this.lagNanos[this.lags] = lag.toNanos();
            this.appliedAtNanos[this.lags] = System.nanoTime();
            this.lags++;
        }
    }

    /** The lags measured, in nanoseconds, in the order their changes were applied. */
    long[] lags() {
        synchronized (this.lagLock) {
            return Arrays.copyOf(this.lagNanos, this.lags);
        }
    }

    /** When each of {@link #lags()} was applied ({@link System#nanoTime()}). */
    long[] appliedAt() {
        synchronized (this.lagLock) {
            return Arrays.copyOf(this.appliedAtNanos, this.lags);
        }
    }

    @Override
    public void close() {
        this.filterFeed.close();
        this.scheduler.shutdownNow();
        if (this.dataSource != null) {
            this.dataSource.close();
        }
    }
}
