package io.bloomguard.debezium;

import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.FeedChange;
import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FeedTarget;
import io.bloomguard.feed.WhenBehind;
import io.bloomguard.testsupport.postgres.PostgresServerProcess;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The PostgreSQL feed against a real server, with another connection playing the service that writes behind the
 * application's back: what it commits arrives in commit order, a feed started again misses nothing, a dropped slot
 * is reported lost, and a database restart is reported and survived.
 */
@Timeout(60)
class PostgresChangeFeedIT {

    private static final Duration ARRIVAL = Duration.ofSeconds(20);

    private static PostgresServerProcess postgres;

    private final List<ChangeFeed> feeds = new ArrayList<>();

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServerProcess.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @AfterEach
    void closeFeeds() {
        this.feeds.forEach(ChangeFeed::close);
    }

    @Test
    void insertsUpdatesAndDeletesByAnotherServiceArriveInCommitOrderWithTheirCommitTimes() {
        postgres.execute("create table orders (id bigint primary key, note text)");
        RecordingSink sink = new RecordingSink();
        Instant started = Instant.now();
        start("orders", true, null, sink);
        // Right after start() returns: the feed must see it, though its engine is still starting.
        postgres.execute("insert into orders values (1, 'a')", "insert into orders values (2, 'b')",
                "update orders set note = 'c' where id = 1", "update orders set id = 3 where id = 2",
                "delete from orders where id = 1");
        Instant committed = Instant.now();

        // A counting filter counts rows: the update of a note adds nothing, the new primary key replaces the old.
        await().atMost(ARRIVAL).until(() -> sink.changes.size() >= 5);
        assertThat(sink.changes).extracting(FeedChange::key, FeedChange::removed)
            .containsExactly(tuple(1L, false), tuple(2L, false), tuple(2L, true), tuple(3L, false), tuple(1L, true));
        assertThat(sink.changes).allSatisfy((change) -> assertThat(change.committedAt()).isNotNull()
            .isBetween(started.minusSeconds(1), committed.plusSeconds(1)));
        assertThat(sink.changes).extracting(FeedChange::committedAt).isSorted();
        assertThat(sink.failures).isEmpty();
        System.out.printf("postgres feed: first batch %d ms after start()%n",
                Duration.between(started, sink.addedAt.get(1L)).toMillis());

        // Idle: the probes keep moving currentAsOf past the last change.
        Instant idleSince = Instant.now();
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.currentAsOf().isAfter(idleSince));
    }

    @Test
    void aPublicationThatExistsWithoutTheTableGetsItBeforeTheFeedStarts() {
        postgres.execute("create table gifts (id bigint primary key)", "create table wrappings (id bigint primary key)",
                "create publication bloom_guard_gifts for table wrappings");
        RecordingSink sink = new RecordingSink();
        start("gifts", true, null, sink);
        postgres.execute("insert into gifts values (1)");
        await().atMost(ARRIVAL).until(() -> sink.addedKeys().contains(1L));
    }

    @Test
    void aFeedThatDoesNotRemoveReadsOnlyAddsAndTheLagOfAFewInsertsIsMeasured() {
        postgres.execute("create table users (id bigint primary key, note text)");
        RecordingSink sink = new RecordingSink();
        start("users", false, null, sink);
        await().atMost(ARRIVAL).until(() -> !sink.batches.isEmpty());
        List<Long> lags = new ArrayList<>();
        for (long id = 1; id <= 5; id++) {
            postgres.execute("insert into users (id) values (" + id + ")");
            Instant inserted = Instant.now();
            long key = id;
            await().atMost(ARRIVAL).pollInterval(Duration.ofMillis(5)).until(() -> sink.addedAt.containsKey(key));
            lags.add(Duration.between(inserted, sink.addedAt.get(key)).toMillis());
        }
        postgres.execute("delete from users where id = 1", "update users set note = 'x' where id = 2",
                "update users set id = 7 where id = 3", "insert into users (id) values (6)");
        await().atMost(ARRIVAL).until(() -> sink.addedAt.containsKey(6L));
        assertThat(sink.changes).noneMatch(FeedChange::removed);
        assertThat(sink.addedKeys()).containsSubsequence(5L, 2L, 7L, 6L);
        System.out.println("postgres feed: commit-to-accept lag of single inserts (ms): " + lags);
    }

    @Test
    void aFeedStartedAgainFromItsSavedPositionMissesNothingCommittedWhileItWasDown() {
        postgres.execute("create table accounts (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        ChangeFeed feed = start("accounts", true, null, first);
        postgres.execute("insert into accounts values (1)");
        await().atMost(ARRIVAL).until(() -> first.addedKeys().contains(1L));
        feed.close();
        String saved = first.lastPosition();
        assertThat(saved).isNotNull();

        postgres.execute("insert into accounts select generate_series(2, 50)", "delete from accounts where id = 1");
        RecordingSink second = new RecordingSink();
        start("accounts", true, saved, second);
        postgres.execute("insert into accounts values (51)");

        await().atMost(ARRIVAL).until(() -> second.addedKeys().contains(51L));
        assertThat(second.addedKeys()).containsAll(LongStream.rangeClosed(2, 51).boxed().toList())
            .doesNotHaveDuplicates();
        assertThat(second.changes).contains(FeedChange.deleted(1L, second.changes.stream()
            .filter(FeedChange::removed).findFirst().orElseThrow().committedAt()));
        assertThat(second.lost).isEmpty();
    }

    /**
     * A key column that is not the primary key: its deletes and changes carry the old value only with REPLICA
     * IDENTITY FULL; without it a counting filter keeps the key (a false positive until a rebuild, never a negative).
     */
    @Test
    void aKeyColumnOtherThanThePrimaryKeyIsRemovedOnlyWithReplicaIdentityFull() {
        postgres.execute("create table emails (id bigint primary key, email text)",
                "create table phones (id bigint primary key, phone text)", "alter table emails replica identity full");
        RecordingSink full = new RecordingSink();
        start("emails", true, null, full, "email", Map.of());
        RecordingSink byDefault = new RecordingSink();
        start("phones", true, null, byDefault, "phone", Map.of());
        postgres.execute("insert into emails values (1, 'a')", "update emails set email = 'b' where id = 1",
                "update emails set id = 2 where id = 1", "delete from emails where id = 2",
                "insert into phones values (1, 'a')", "update phones set phone = 'b' where id = 1",
                "delete from phones where id = 1", "insert into phones values (2, 'c')");

        await().atMost(ARRIVAL).until(() -> full.changes.size() >= 6 && byDefault.addedKeys().contains("c"));
        assertThat(full.changes).extracting(FeedChange::key, FeedChange::removed)
            .containsExactly(tuple("a", false), tuple("b", false), tuple("a", true), tuple("b", true),
                    tuple("b", false), tuple("b", true));
        assertThat(byDefault.changes).extracting(FeedChange::key, FeedChange::removed)
            .containsExactly(tuple("a", false), tuple("b", false), tuple("c", false));
    }

    /**
     * A crash after the filter saved a batch's position but before the engine confirmed it to the slot leaves the
     * slot behind: the feed resumes after the saved position all the same, so a counting filter does not count
     * the batch's keys (or their deletes) twice. The first feed here never confirms anything to the slot.
     */
    @Test
    void aFeedResumesAfterItsSavedPositionEvenWhenTheSlotWasNotConfirmedThatFar() {
        postgres.execute("create table baskets (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        ChangeFeed feed = start("baskets", true, null, first, Map.of("flush.lsn.source", "false"));
        postgres.execute("insert into baskets values (1)", "delete from baskets where id = 1");
        await().atMost(ARRIVAL).until(() -> first.changes.size() >= 2);
        feed.close();

        RecordingSink second = new RecordingSink();
        start("baskets", true, first.lastPosition(), second);
        postgres.execute("insert into baskets values (2)");
        await().atMost(ARRIVAL).until(() -> second.addedKeys().contains(2L));
        assertThat(second.changes).extracting(FeedChange::key).containsExactly(2L);
        assertThat(second.lost).isEmpty();
    }

    @Test
    void aSlotConfirmedPastTheSavedPositionMeansItIsLost() {
        postgres.execute("create table coupons (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        ChangeFeed feed = start("coupons", true, null, first);
        postgres.execute("insert into coupons values (1)");
        await().atMost(ARRIVAL).until(() -> first.addedKeys().contains(1L));
        feed.close();
        // Another consumer of the slot reads on, past what this filter saved.
        postgres.execute("insert into coupons values (2)",
                "select pg_replication_slot_advance('bloom_guard_coupons', pg_current_wal_lsn())");

        RecordingSink second = new RecordingSink();
        start("coupons", true, first.lastPosition(), second);
        await().atMost(ARRIVAL).until(() -> !second.lost.isEmpty());
        assertThat(second.lost.get(0)).contains("past the feed's position");
        assertThat(second.batches).isEmpty();
    }

    @Test
    void aFeedStartedWithoutAPositionStartsAtThePresentOnItsOldSlot() {
        postgres.execute("create table carts (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        ChangeFeed feed = start("carts", true, null, first);
        postgres.execute("insert into carts values (1)");
        await().atMost(ARRIVAL).until(() -> first.addedKeys().contains(1L));
        feed.close();

        // Before the new start: the filter's rebuild reads these rows, the feed must not replay them (a counting
        // filter would count the delete of a key it never had).
        postgres.execute("insert into carts values (2)", "delete from carts where id = 1");
        RecordingSink second = new RecordingSink();
        start("carts", true, null, second);
        postgres.execute("insert into carts values (3)");
        await().atMost(ARRIVAL).until(() -> second.addedKeys().contains(3L));
        assertThat(second.changes).extracting(FeedChange::key).containsExactly(3L);
    }

    @Test
    void aDroppedSlotMeansTheSavedPositionIsLost() {
        postgres.execute("create table payments (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        ChangeFeed feed = start("payments", true, null, first);
        postgres.execute("insert into payments values (1)");
        await().atMost(ARRIVAL).until(() -> first.addedKeys().contains(1L));
        feed.close();
        postgres.execute("select pg_drop_replication_slot('bloom_guard_payments')");

        RecordingSink second = new RecordingSink();
        ChangeFeed resumed = start("payments", true, first.lastPosition(), second);
        await().atMost(ARRIVAL).until(() -> !second.lost.isEmpty());
        assertThat(second.lost.get(0)).contains("bloom_guard_payments").contains("does not exist");
        assertThat(second.batches).isEmpty();

        // The runner rebuilds the filter and starts the feed again from the present, on a new slot; then the slot
        // is dropped while streaming: the walsender ended, the slot dropped before the feed reconnects.
        RecordingSink third = new RecordingSink();
        resumed.start(null, third);
        postgres.execute("insert into payments values (2)");
        await().atMost(ARRIVAL).until(() -> third.addedKeys().contains(2L));
        postgres.execute("select pg_terminate_backend(active_pid, 5000) from pg_replication_slots "
                + "where slot_name = 'bloom_guard_payments'", "select pg_drop_replication_slot('bloom_guard_payments')");
        await().atMost(ARRIVAL).until(() -> !third.lost.isEmpty());
        assertThat(third.lost.get(0)).contains("does not exist");
    }

    @Test
    void aDatabaseRestartIsReportedAndTheFeedResumesWithNothingMissed() {
        postgres.execute("create table invoices (id bigint primary key)");
        RecordingSink sink = new RecordingSink();
        start("invoices", true, null, sink);
        postgres.execute("insert into invoices values (1)");
        await().atMost(ARRIVAL).until(() -> sink.addedKeys().contains(1L));

        // Committed just before the crash: some of it is likely not delivered yet.
        postgres.execute("insert into invoices select generate_series(2, 200)");
        postgres.kill();
        postgres.restart();
        Instant restarted = Instant.now();
        postgres.execute("insert into invoices values (201)");

        await().atMost(Duration.ofSeconds(40)).until(() -> sink.addedKeys().contains(201L));
        System.out.printf("postgres feed: back %d ms after the database restarted; %d keys delivered twice%n",
                Duration.between(restarted, sink.addedAt.get(201L)).toMillis(),
                sink.addedKeys().size() - sink.addedKeys().stream().distinct().count());
        assertThat(sink.failures).isNotEmpty();
        assertThat(sink.lost).isEmpty();
        assertThat(sink.addedKeys()).containsAll(LongStream.rangeClosed(1, 201).boxed().toList());
    }

    private ChangeFeed start(String table, boolean removes, @Nullable String from, RecordingSink sink) {
        return start(table, removes, from, sink, Map.of());
    }

    @Test
    void eachInstanceOfALocalFilterFollowsOnASlotOfItsOwnDroppedWhenItStops() {
        postgres.execute("create table sessions (id bigint primary key)");
        RecordingSink first = new RecordingSink();
        RecordingSink second = new RecordingSink();
        ChangeFeed one = startLocal("sessions", first);
        startLocal("sessions", second);
        await().atMost(ARRIVAL).until(() -> !first.batches.isEmpty() && !second.batches.isEmpty());

        postgres.execute("insert into sessions (id) values (1), (2)");

        await().atMost(ARRIVAL).until(() -> first.addedKeys().containsAll(List.of(1L, 2L))
                && second.addedKeys().containsAll(List.of(1L, 2L)));
        assertThat(first.failures).isEmpty();
        assertThat(second.failures).isEmpty();
        assertThat(instanceSlots("sessions")).hasSize(2);
        one.close();
        assertThat(instanceSlots("sessions")).as("the stopped instance's slot, dropped").hasSize(1);
    }

    private List<@Nullable String> instanceSlots(String table) {
        return postgres.query("select slot_name from pg_replication_slots where slot_name like 'bloom_guard_" + table
                + "\\_%' order by slot_name");
    }

    private ChangeFeed startLocal(String table, RecordingSink sink) {
        ChangeFeed feed = new PostgresChangeFeedFactory(null, null, null).create(new FeedTarget(table, false, false,
                settings(table, "id", Map.of())));
        this.feeds.add(feed);
        feed.start(null, sink);
        return feed;
    }

    private static FeedSettings settings(String table, String keyColumn, Map<String, String> debeziumProperties) {
        return new FeedSettings("postgres", Duration.ofSeconds(5), WhenBehind.PASS,
                new FeedSettings.Jdbc(null, Duration.ofSeconds(1), Duration.ofSeconds(1)),
                new FeedSettings.Postgres("public." + table, keyColumn, null, null, postgres.jdbcUrl(),
                        postgres.username(), postgres.password(), debeziumProperties));
    }

    private ChangeFeed start(String table, boolean removes, @Nullable String from, RecordingSink sink,
            Map<String, String> debeziumProperties) {
        return start(table, removes, from, sink, "id", debeziumProperties);
    }

    private ChangeFeed start(String table, boolean removes, @Nullable String from, RecordingSink sink,
            String keyColumn, Map<String, String> debeziumProperties) {
        FeedSettings settings = settings(table, keyColumn, debeziumProperties);
        ChangeFeed feed = new PostgresChangeFeedFactory(null, null, null).create(new FeedTarget(table, removes, true,
                settings));
        this.feeds.add(feed);
        feed.start(from, sink);
        return feed;
    }

    private static org.assertj.core.groups.Tuple tuple(Object... values) {
        return org.assertj.core.groups.Tuple.tuple(values);
    }
}
