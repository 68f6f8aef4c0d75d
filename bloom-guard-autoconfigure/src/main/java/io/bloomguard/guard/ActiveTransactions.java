package io.bloomguard.guard;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Whether the current thread runs in a Spring-managed transaction, and what to do unless it rolls back, without needing
 * spring-tx on the classpath. For a reactive pipeline, see {@link ReactiveTransactions}.
 */
final class ActiveTransactions {

    private static final boolean SPRING_TX = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            ActiveTransactions.class.getClassLoader());

    private ActiveTransactions() {
    }

    /** {@code true} if a transaction is active, {@code false} if none is or there is no spring-tx to tell. */
    static boolean active() {
        return SPRING_TX && SpringTx.active();
    }

    /** Whether spring-tx is on the classpath. */
    static boolean springTxPresent() {
        return SPRING_TX;
    }

    /**
     * Runs {@code action} once the transaction active on this thread has committed, or ended with an unknown
     * outcome (not if it rolled back); does nothing when no transaction is active.
     */
    static void unlessRolledBack(Runnable action) {
        if (SPRING_TX) {
            SpringTx.unlessRolledBack(action);
        }
    }

    /**
     * Runs {@code suspended} if the transaction active on this thread is suspended for another (a
     * {@code REQUIRES_NEW} or {@code NOT_SUPPORTED} further down), which can commit before it.
     *
     * @return whether a transaction is active to watch; if not, each statement commits at once
     */
    static boolean onSuspend(Runnable suspended) {
        return SPRING_TX && SpringTx.onSuspend(suspended);
    }

    /**
     * Runs {@code beforeCommit} just before the transaction active on this thread commits, {@code afterCommit} once it
     * has, and {@code ended} once it is over however it ended; does nothing and answers {@code false} when no
     * transaction is active.
     */
    static boolean atCommit(Runnable beforeCommit, Runnable afterCommit, Runnable ended) {
        return SPRING_TX && SpringTx.atCommit(beforeCommit, afterCommit, ended);
    }

    /**
     * Runs {@code action} once the transaction active on this thread has committed: not if it rolled back, nor if
     * its outcome is unknown.
     *
     * @return whether a transaction is active to wait for; if not, nothing is registered
     */
    static boolean afterCommit(Runnable action) {
        return SPRING_TX && SpringTx.atCommit(() -> { }, action, () -> { });
    }

    /** Loaded only once spring-tx is known to be there. */
    private static final class SpringTx {

        private static boolean synchronizedTransaction() {
            return active() && TransactionSynchronizationManager.isSynchronizationActive();
        }

        static boolean onSuspend(Runnable suspended) {
            if (!synchronizedTransaction()) {
                return false;
            }
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void suspend() {
                    suspended.run();
                }
            });
            return true;
        }

        static boolean atCommit(Runnable beforeCommit, Runnable afterCommit, Runnable ended) {
            if (!synchronizedTransaction()) {
                return false;
            }
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    beforeCommit.run();
                }

                @Override
                public void afterCommit() {
                    afterCommit.run();
                }

                @Override
                public void afterCompletion(int status) {
                    ended.run();
                }
            });
            return true;
        }

        static boolean active() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }

        static void unlessRolledBack(Runnable action) {
            if (synchronizedTransaction()) {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCompletion(int status) {
                        if (status != STATUS_ROLLED_BACK) { // an unknown outcome may have committed
                            action.run();
                        }
                    }
                });
            }
        }
    }
}
