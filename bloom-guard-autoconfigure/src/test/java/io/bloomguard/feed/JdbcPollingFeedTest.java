package io.bloomguard.feed;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The jdbc feed against a real database (H2), another connection playing the service that writes behind the
 * application's back; each poll is run by the test, on a clock it moves.
 */
class JdbcPollingFeedTest {

    private static final String QUERY = "select id, updated_at from account where updated_at > :since";
    private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    private final MovableClock clock = new MovableClock(START);
    private final RecordingSink sink = new RecordingSink();
    private DriverManagerDataSource dataSource;
    private JdbcTemplate jdbc;

    @BeforeEach
    void database() {
        dataSource = new DriverManagerDataSource("jdbc:h2:mem:feed-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("create table account (id bigint primary key, updated_at timestamp not null)");
    }

    @AfterEach
    void drop() {
        jdbc.execute("shutdown");
    }

    @Test
    void rowsInsertedByAnotherServiceArriveOnceEachWithTheirWatermark() {
        JdbcPollingFeed feed = feed(Duration.ofSeconds(30));
        feed.resume(null, sink);
        insert(1, START.plusSeconds(1));
        insert(2, START.plusSeconds(2));
        clock.advance(Duration.ofSeconds(3));

        feed.poll(sink);
        feed.poll(sink); // reads both rows again (they are inside the overlap) but hands neither over twice
        insert(3, START.plusSeconds(4));
        clock.advance(Duration.ofSeconds(2));
        feed.poll(sink);

        assertThat(sink.keys()).containsExactly(1L, 2L, 3L);
        assertThat(sink.batches.get(0).changes()).extracting(FeedChange::committedAt)
                .containsExactly(START.plusSeconds(1), START.plusSeconds(2));
        assertThat(sink.batches.get(2).currentAsOf()).as("current as of the poll's start").isEqualTo(clock.instant());
    }

    @Test
    void aTransactionThatStampedItsRowBeforeSeveralPollsAndCommitsAfterThemIsFound() throws SQLException {
        JdbcPollingFeed feed = feed(Duration.ofSeconds(30));
        feed.resume(null, sink);
        try (Connection longTransaction = dataSource.getConnection()) {
            longTransaction.setAutoCommit(false);
            insert(longTransaction, 1, START.plusSeconds(1)); // stamped now, committed 20 s later
            for (int second = 2; second <= 20; second += 2) {
                insert(100 + second, START.plusSeconds(second)); // others commit meanwhile, moving the watermark
                clock.advance(Duration.ofSeconds(2));
                feed.poll(sink);
            }
            assertThat(sink.keys()).doesNotContain(1L);
            longTransaction.commit();
        }
        clock.advance(Duration.ofSeconds(1));
        feed.poll(sink);

        assertThat(sink.keys()).contains(1L).hasSize(11);
    }

    @Test
    void withoutOverlapThatTransactionsRowIsMissedWhichIsWhatTheOverlapIsFor() throws SQLException {
        JdbcPollingFeed feed = feed(Duration.ZERO);
        feed.resume(null, sink);
        try (Connection longTransaction = dataSource.getConnection()) {
            longTransaction.setAutoCommit(false);
            insert(longTransaction, 1, START.plusSeconds(1));
            insert(2, START.plusSeconds(2));
            clock.advance(Duration.ofSeconds(3));
            feed.poll(sink);
            longTransaction.commit();
        }
        clock.advance(Duration.ofSeconds(1));
        feed.poll(sink);

        assertThat(sink.keys()).containsExactly(2L);
    }

    @Test
    void aFeedStartedAgainFromItsSavedPositionMissesNothingCommittedWhileItWasStopped() {
        JdbcPollingFeed first = feed(Duration.ofSeconds(5));
        first.resume(null, sink);
        insert(1, START.plusSeconds(1));
        clock.advance(Duration.ofSeconds(2));
        first.poll(sink);
        String saved = sink.batches.get(sink.batches.size() - 1).position();

        insert(2, START.plusSeconds(30)); // while no instance polls
        clock.advance(Duration.ofMinutes(5));
        RecordingSink afterRestart = new RecordingSink();
        JdbcPollingFeed second = feed(Duration.ofSeconds(5));
        second.resume(saved, afterRestart);
        second.poll(afterRestart);

        assertThat(afterRestart.keys()).contains(2L);
    }

    @Test
    void aQueryThatFailsIsReportedAndTheNextPollCatchesUp() {
        JdbcPollingFeed feed = feed(Duration.ofSeconds(30));
        feed.resume(null, sink);
        insert(1, START.plusSeconds(1));
        jdbc.execute("alter table account rename to account_moved");
        clock.advance(Duration.ofSeconds(2));
        feed.poll(sink);
        assertThat(sink.failures).hasSize(1);
        assertThat(sink.batches).isEmpty();

        jdbc.execute("alter table account_moved rename to account");
        feed.poll(sink);

        assertThat(sink.keys()).containsExactly(1L);
    }

    @Test
    void aBatchTheFilterCouldNotTakeIsHandedOverAgain() {
        JdbcPollingFeed feed = feed(Duration.ofSeconds(30));
        feed.resume(null, sink);
        insert(1, START.plusSeconds(1));
        clock.advance(Duration.ofSeconds(2));
        sink.refuseNext = true;
        feed.poll(sink);
        feed.poll(sink);

        assertThat(sink.failures).hasSize(1);
        assertThat(sink.keys()).containsExactly(1L);
    }

    @Test
    void anUnreadableSavedPositionIsReportedLost() {
        JdbcPollingFeed feed = feed(Duration.ofSeconds(30));

        assertThat(feed.resume("slot-7/0/16B3748", sink)).isFalse();
        assertThat(sink.lost).hasSize(1);
    }

    @Test
    void aQueryWithoutTheSinceParameterIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new JdbcPollingFeed("accounts", dataSource, new FeedSettings.Jdbc(
                "select id, updated_at from account", Duration.ofSeconds(1), Duration.ofSeconds(30)), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bloom-guard.filters.accounts.feed.jdbc.query").hasMessageContaining(":since");
        assertThatThrownBy(() -> new JdbcPollingFeed("accounts", dataSource, new FeedSettings.Jdbc(null,
                Duration.ofSeconds(1), Duration.ofSeconds(30)), clock))
                .hasMessageContaining("bloom-guard.filters.accounts.feed.jdbc.query is required");
    }

    @Test
    void aSecondColumnThatIsNoTimestampIsReportedAsAFailureNamingTheProperty() {
        JdbcPollingFeed feed = new JdbcPollingFeed("accounts", dataSource, new FeedSettings.Jdbc(
                "select id, 'soon' from account where updated_at > :since", Duration.ofSeconds(1),
                Duration.ofSeconds(30)), clock);
        feed.resume(null, sink);
        insert(1, START.plusSeconds(1));
        feed.poll(sink);

        assertThat(sink.failures).singleElement().asString().contains("feed.jdbc.query");
    }

    private JdbcPollingFeed feed(Duration overlap) {
        return new JdbcPollingFeed("accounts", dataSource, new FeedSettings.Jdbc(QUERY, Duration.ofSeconds(1),
                overlap), clock);
    }

    private void insert(long id, Instant stamp) {
        jdbc.update("insert into account (id, updated_at) values (?, ?)", id, Timestamp.from(stamp));
    }

    private static void insert(Connection connection, long id, Instant stamp) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into account (id, updated_at) values (?, ?)")) {
            insert.setLong(1, id);
            insert.setTimestamp(2, Timestamp.from(stamp));
            insert.executeUpdate();
        }
    }

    static final class RecordingSink implements FeedSink {

        final List<FeedBatch> batches = new ArrayList<>();
        final List<Exception> failures = new ArrayList<>();
        final List<String> lost = new ArrayList<>();
        boolean refuseNext;

        @Override
        public void accept(FeedBatch batch) {
            if (refuseNext) {
                refuseNext = false;
                throw new IllegalStateException("the store did not answer");
            }
            batches.add(batch);
        }

        @Override
        public void failing(Exception cause) {
            failures.add(cause);
        }

        @Override
        public void lost(String why) {
            lost.add(why);
        }

        List<Object> keys() {
            return batches.stream().flatMap(batch -> batch.changes().stream()).map(FeedChange::key).toList();
        }
    }

    static final class MovableClock extends Clock {

        private volatile Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
