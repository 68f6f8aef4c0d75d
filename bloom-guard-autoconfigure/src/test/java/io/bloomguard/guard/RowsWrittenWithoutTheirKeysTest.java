package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Rows that exist while their keys never reached the filter: a key still {@code null} once the write is over, and
 * a write that throws after part of it committed on its own (an inner {@code REQUIRES_NEW}, or no transaction at all)
 * while its own transaction rolls back. The filter must stop rejecting (and rebuilds itself from its key source), or
 * those rows would be "not found" for good. H2 with real transactions; the filter 'written' is loaded from the table.
 */
@SpringBootTest(classes = { TestApplication.class, RowsWrittenWithoutTheirKeysTest.Writes.class })
@TestPropertySource(locations = "classpath:testapp.properties", properties = {
        "bloom-guard.filters.written.expected-size=10000",
        "bloom-guard.filters.written.preload.sql=SELECT id FROM customer" })
class RowsWrittenWithoutTheirKeysTest {

    private static final Duration RECOVERY = Duration.ofSeconds(15);

    @Autowired
    Writes writes;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    BloomFilterRegistry registry;

    NamedBloomFilter written;

    @BeforeEach
    void filterRejects() {
        written = registry.get("written");
        await("the filter rejects").atMost(RECOVERY).until(written::trustedToReject);
    }

    @Test
    void aRecordReturnedWithoutItsKeyIsNotRejected() {
        String name = "copy-" + System.nanoTime();

        Customer returned = writes.insertReturningACopy(name);

        assertThat(returned.getId()).as("the copy never shows the id").isNull();
        assertFoundOnceCommitted(name);
    }

    @Test
    void aRecordWhoseArgumentNeverReceivesItsKeyIsNotRejected() {
        String name = "untold-" + System.nanoTime();

        writes.insert(new Customer(name, "t9", name));

        assertFoundOnceCommitted(name);
    }

    @Test
    void aWriteThatThrowsAfterWorkCommittedInAnInnerTransactionDoesNotHideThatRow() {
        String name = "apart-" + System.nanoTime();

        assertThatThrownBy(() -> writes.insertApartThenFail(name)).isInstanceOf(IllegalStateException.class);

        assertFoundOnceCommitted(name);
    }

    @Test
    void aWriteWithNoTransactionThatThrowsAfterInsertingDoesNotHideThatRow() {
        String name = "auto-" + System.nanoTime();

        assertThatThrownBy(() -> writes.insertWithoutTransactionThenFail(name)).isInstanceOf(IllegalStateException.class);

        assertFoundOnceCommitted(name);
    }

    /** What the guard must not mark: a write rolled back whole, and a key said to be missing by an empty collection. */
    @Test
    void aRolledBackWriteAndAKeyThatMayBeMissingLeaveTheFilterRejecting() {
        String name = "rolled-back-" + System.nanoTime();

        assertThatThrownBy(() -> writes.insertThenFail(name)).isInstanceOf(IllegalStateException.class);
        writes.remember(null);

        assertThat(jdbc.queryForObject("select count(*) from customer where name = ?", Integer.class, name)).isZero();
        assertThat(written.trustedToReject()).isTrue();
        assertThat(writes.find(987_654_321L)).as("an absent id").isEmpty();
    }

    /** The row named {@code name} is committed, and a guarded lookup finds it (once the filter is rebuilt). */
    private void assertFoundOnceCommitted(String name) {
        Long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
        await("the committed row is found").atMost(RECOVERY).untilAsserted(
                () -> assertThat(writes.find(id)).as("customer %d", id).containsExactly(name));
    }

    /** Writes through JDBC, so that nothing but their own {@code @BloomPut} keys them. */
    static class Writes {

        private static final String INSERT = "insert into customer (name, tenant, code) values (?, 't9', ?)";

        private final JdbcTemplate jdbc;
        private final TransactionTemplate requiresNew;

        Writes(JdbcTemplate jdbc, PlatformTransactionManager transactions) {
            this.jdbc = jdbc;
            this.requiresNew = new TransactionTemplate(transactions);
            this.requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        }

        /** Returns a customer made apart from the row, whose id it never learns. */
        @Transactional
        @BloomPut(filter = "written", key = "#result.id")
        public Customer insertReturningACopy(String name) {
            jdbc.update(INSERT, name, name);
            return new Customer(name, "t9", name);
        }

        /** The id goes to the database, not to the customer passed in. */
        @Transactional
        @BloomPut(filter = "written", key = "#customer.id")
        public void insert(Customer customer) {
            jdbc.update(INSERT, customer.getName(), customer.getCode());
        }

        /** The insert commits in a transaction of its own; the method's own then rolls back. */
        @Transactional
        @BloomPut(filter = "written", key = "#result.id")
        public Customer insertApartThenFail(String name) {
            requiresNew.executeWithoutResult(status -> jdbc.update(INSERT, name, name));
            throw new IllegalStateException("failed after " + name + " was committed apart");
        }

        /** No transaction: the insert commits as it runs. */
        @BloomPut(filter = "written", key = "#result.id")
        public Customer insertWithoutTransactionThenFail(String name) {
            jdbc.update(INSERT, name, name);
            throw new IllegalStateException("failed after " + name + " was inserted");
        }

        @Transactional
        @BloomPut(filter = "written", key = "#result.id")
        public Customer insertThenFail(String name) {
            jdbc.update(INSERT, name, name);
            throw new IllegalStateException("failed before " + name + " was committed");
        }

        /** A key that may be missing, which says so: nothing to put. */
        @BloomPut(filter = "written", key = "#id != null ? {#id} : {}")
        public void remember(Long id) {
        }

        @BloomGuarded(filter = "written", key = "#id")
        public List<String> find(Long id) {
            return jdbc.queryForList("select name from customer where id = ?", String.class, id);
        }
    }
}
