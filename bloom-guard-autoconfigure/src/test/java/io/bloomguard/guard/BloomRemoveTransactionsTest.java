package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerDeletions;
import io.bloomguard.testapp.RemovableCustomerRepository;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import static io.bloomguard.guard.BloomRemoveTest.MAX_STILL_PASSING;
import static io.bloomguard.guard.BloomRemoveTest.REMOVED;
import static io.bloomguard.guard.BloomRemoveTest.TENANT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @BloomRemove} and the transaction around the delete, on the H2 test application with its JPA transaction
 * manager: a delete undone by a rollback to a savepoint removes nothing though its transaction commits, two
 * transactions deleting one row remove its key once, and a delete whose commit cannot be watched removes nothing.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
@ExtendWith(OutputCaptureExtension.class)
class BloomRemoveTransactionsTest {

    @Autowired
    RemovableCustomerRepository customers;

    @Autowired
    CustomerDeletions deletions;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    @Qualifier("removable")
    NamedBloomFilter removable;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    DataSource dataSource;

    @Test
    void aDeleteRolledBackToASavepointRemovesNothingThoughItsTransactionCommits() {
        List<Long> ids = saveNew(REMOVED);

        for (Long id : ids) {
            savepointTransaction(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
                Object savepoint = status.createSavepoint();
                assertThat(deletions.deleteRow(id)).isOne();
                status.rollbackToSavepoint(savepoint);
            });
        }

        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
    }

    @Test
    void aDeleteInANestedTransactionThatRollsBackRemovesNothing() {
        List<Long> ids = saveNew(REMOVED);

        for (Long id : ids) {
            savepointTransaction(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(outer ->
                    assertThatThrownBy(() -> savepointTransaction(TransactionDefinition.PROPAGATION_NESTED)
                            .executeWithoutResult(nested -> {
                                assertThat(deletions.deleteRow(id)).isOne();
                                throw new IllegalStateException("undone: back to the savepoint");
                            })).hasMessageStartingWith("undone"));
        }

        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
    }

    /**
     * Deletes before a savepoint that is then rolled back to, and in nested transactions that complete, commit with
     * the transaction: their keys go. Those undone in between stay.
     */
    @Test
    void deletesThatNoSavepointUndoesAreRemovedAtTheCommit() {
        List<Long> before = saveNew(REMOVED / 2);
        List<Long> nestedDone = saveNew(REMOVED / 2);
        List<Long> undone = saveNew(REMOVED);

        for (int i = 0; i < before.size(); i++) {
            Long beforeId = before.get(i);
            Long nestedId = nestedDone.get(i);
            List<Long> undoneIds = undone.subList(2 * i, 2 * i + 2);
            savepointTransaction(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(outer -> {
                deletions.deleteRow(beforeId);
                assertThatThrownBy(() -> savepointTransaction(TransactionDefinition.PROPAGATION_NESTED)
                        .executeWithoutResult(nested -> {
                            deletions.deleteRow(undoneIds.get(0));
                            throw new IllegalStateException("undone: back to the savepoint");
                        })).hasMessageStartingWith("undone");
                savepointTransaction(TransactionDefinition.PROPAGATION_NESTED)
                        .executeWithoutResult(nested -> deletions.deleteRow(nestedId));
                Object savepoint = outer.createSavepoint();
                deletions.deleteRow(undoneIds.get(1));
                outer.rollbackToSavepoint(savepoint);
            });
        }

        List<Long> deleted = new ArrayList<>(before);
        deleted.addAll(nestedDone);
        assertThat(deleted.stream().filter(removable::mightContain).count()).isLessThanOrEqualTo(MAX_STILL_PASSING);
        assertThat(undone).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
    }

    /**
     * Two transactions delete one customer at once: the second waits for the first's row lock, and once the first has
     * committed, finds nothing to delete. The key is removed once. (The customer was saved twice, each save putting
     * its key, so the filter counts it twice: a second remove would take a count that a different key could as well
     * have put, and make that one "not found".)
     */
    @Test
    void twoTransactionsDeletingOneRowAtOnceRemoveItsKeyOnce() throws Exception {
        Customer customer = customers.save(new Customer("twice-" + UUID.randomUUID(), TENANT, "c"));
        customers.save(customer); // an update: its key is put again
        Long id = customer.getId();
        CountDownLatch firstDeleted = new CountDownLatch(1);
        CountDownLatch commitFirst = new CountDownLatch(1);

        TransactionTemplate transaction = new TransactionTemplate(transactionManager);
        // A thread each: CompletableFuture's own pool may have a single one (Java 25 on two cores), where the
        // second delete would wait for the first to commit instead of for its row lock.
        ExecutorService twoThreads = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> transaction.execute(status -> {
                        int deleted = customers.deleteCustomerById(id);
                        firstDeleted.countDown();
                        awaitLatch(commitFirst);
                        return deleted;
                    }), twoThreads);
            awaitLatch(firstDeleted);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(
                    () -> transaction.execute(status -> customers.deleteCustomerById(id)), twoThreads);
            await("the second delete waits for the first's row lock").atMost(Duration.ofSeconds(10))
                    .until(() -> jdbc.queryForObject("select count(*) from information_schema.sessions"
                            + " where blocker_id is not null", Integer.class) > 0);
            commitFirst.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isOne();
            assertThat(second.get(10, TimeUnit.SECONDS)).isZero();
        }
        finally {
            commitFirst.countDown();
            twoThreads.shutdownNow();
        }
        assertThat(removable.mightContain(id)).as("put twice, removed once").isTrue();
    }

    /**
     * In an after-completion callback the transaction is still active but its synchronization is over: nothing says
     * whether a delete made there commits, so its key stays in (a false positive until the next rebuild), with one
     * warning for the method.
     */
    @Test
    void aDeleteInATransactionWhoseCommitCannotBeWatchedRemovesNothing(CapturedOutput output) {
        List<Long> ids = saveNew(20);

        for (Long id : ids) {
            new TransactionTemplate(transactionManager).executeWithoutResult(status ->
                    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public void afterCompletion(int completion) {
                            deletions.deleteRow(id);
                        }
                    }));
        }

        assertThat(ids).allSatisfy(id -> assertThat(removable.mightContain(id)).as("customer %d", id).isTrue());
        assertThat(output.getOut().split("CustomerDeletions.deleteRow deleted inside a transaction whose"
                + " synchronization is off", -1)).hasSize(2);
    }

    /**
     * A transaction manager told never to synchronize marks no transaction active, yet its transaction may roll back:
     * a delete in it removes nothing, and the rows it did not delete after all are found.
     */
    @Test
    void aDeleteInATransactionOfAManagerThatNeverSynchronizesRemovesNothing() {
        List<Long> ids = saveNew(20);
        DataSourceTransactionManager neverSynchronizing = new DataSourceTransactionManager(dataSource);
        neverSynchronizing.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);

        for (Long id : ids) {
            new TransactionTemplate(neverSynchronizing).executeWithoutResult(status -> {
                assertThat(deletions.remove(id, TENANT).deleted()).isTrue();
                status.setRollbackOnly();
            });
        }

        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
    }

    /**
     * A transaction of a JDBC transaction manager over the application's data source: Hibernate's JPA transactions
     * take no savepoints.
     */
    private TransactionTemplate savepointTransaction(int propagation) {
        TransactionTemplate template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        template.setPropagationBehavior(propagation);
        return template;
    }

    private List<Long> saveNew(int count) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String code = "s-" + UUID.randomUUID();
            ids.add(customers.save(new Customer(code, TENANT, code)).getId());
        }
        return ids;
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
