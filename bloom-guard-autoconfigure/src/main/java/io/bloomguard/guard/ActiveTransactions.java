package io.bloomguard.guard;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/** Whether the current thread runs in a Spring-managed transaction, without needing spring-tx on the classpath. */
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

    /** Loaded only once spring-tx is known to be there. */
    private static final class SpringTx {

        static boolean active() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }
    }
}
