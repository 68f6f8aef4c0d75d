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

    /** Loaded only once spring-tx is known to be there. */
    private static final class SpringTx {

        static boolean active() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }

        static void unlessRolledBack(Runnable action) {
            if (active() && TransactionSynchronizationManager.isSynchronizationActive()) {
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
