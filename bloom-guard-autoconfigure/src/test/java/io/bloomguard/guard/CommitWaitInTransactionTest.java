package io.bloomguard.guard;

import io.bloomguard.core.CommitWait;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait a leased near copy asks of writers ({@link CommitWait}): inside a transaction, the puts return at once and
 * the commit happens no sooner than the longest wait any of them owes; outside one, the put itself waits; a put made in
 * another synchronization's {@code beforeCommit} still holds the commit back.
 */
class CommitWaitInTransactionTest {

    /** Long enough that a put returning before it is no accident of scheduling. */
    private static final long WAIT = Duration.ofMillis(400).toNanos();

    private final CommitTimes transactions = new CommitTimes();

    @BeforeAll
    static void install() {
        TransactionCommitWaits.install();
    }

    @Test
    void putsInATransactionReturnAtOnceAndItsCommitWaitsForTheLongestTheyOwe() {
        List<Long> returnedAt = new ArrayList<>();
        long[] owed = new long[2];
        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            owed[0] = System.nanoTime() + WAIT;
            CommitWait.until(owed[0]);
            returnedAt.add(System.nanoTime());
            owed[1] = System.nanoTime() + 2 * WAIT;
            CommitWait.until(owed[1]);
            returnedAt.add(System.nanoTime());
            CommitWait.until(System.nanoTime()); // a shorter one does not cut the longest short
        });
        assertThat(returnedAt.get(0)).as("the first put returned before its wait was over").isLessThan(owed[0]);
        assertThat(returnedAt.get(1)).as("the second too").isLessThan(owed[1]);
        assertThat(transactions.committedAt).as("committed after the longest wait").isGreaterThanOrEqualTo(owed[1]);
    }

    @Test
    void outsideATransactionThePutWaits() {
        long owed = System.nanoTime() + WAIT;
        CommitWait.until(owed);
        assertThat(System.nanoTime()).isGreaterThanOrEqualTo(owed);
    }

    @Test
    void aPutMadeWhileAnotherSynchronizationPreparesTheCommitStillHoldsItBack() {
        long[] owed = new long[1];
        new TransactionTemplate(transactions).executeWithoutResult(status ->
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void beforeCommit(boolean readOnly) {
                        owed[0] = System.nanoTime() + WAIT; // a JPA flush's entity listener, say
                        CommitWait.until(owed[0]);
                    }
                }));
        assertThat(transactions.committedAt).isGreaterThanOrEqualTo(owed[0]);
    }

    /** A transaction manager with no resource that notes when it commits. */
    private static final class CommitTimes extends AbstractPlatformTransactionManager {

        long committedAt;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            committedAt = System.nanoTime();
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }
}
