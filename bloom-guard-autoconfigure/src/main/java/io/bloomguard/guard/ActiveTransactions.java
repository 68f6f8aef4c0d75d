package io.bloomguard.guard;

import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

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

    /** What the current thread runs in, as far as waiting for a commit goes. */
    enum Scope {
        /** No transaction: each statement has committed as it ran. */
        NONE,
        /** A transaction whose end can be watched. */
        SYNCHRONIZED,
        /**
         * A transaction whose synchronization is off, such as the one an after-completion callback still runs in, or
         * one of a transaction manager told never to synchronize: nothing tells when, or whether, what is done in it
         * commits.
         */
        UNSYNCHRONIZED
    }

    /** The scope of the current thread; {@link Scope#NONE} without spring-tx. */
    static Scope scope() {
        return SPRING_TX ? SpringTx.scope() : Scope.NONE;
    }

    /**
     * Runs {@code action} once the transaction active on this thread has committed, unless what was done up to this
     * point is undone: the transaction rolls back or ends with an unknown outcome, or is rolled back to a savepoint
     * taken before this point ({@code Propagation.NESTED}, {@code TransactionStatus.rollbackToSavepoint}). Only in
     * the {@link Scope#SYNCHRONIZED} scope.
     */
    static void afterCommitUnlessUndone(Runnable action) {
        SpringTx.afterCommitUnlessUndone(action);
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

        static Scope scope() {
            if (TransactionSynchronizationManager.isSynchronizationActive()) {
                return active() ? Scope.SYNCHRONIZED : Scope.NONE;
            }
            return (active() || holdsTransactionalResource()) ? Scope.UNSYNCHRONIZED : Scope.NONE;
        }

        /**
         * Whether a transaction's resource (a connection, an entity manager) is bound to the thread: a transaction
         * manager with synchronization set to never marks no transaction active, yet binds what its transaction uses.
         * One bound outside transactions (an entity manager kept open for a web request) is not synchronized with one.
         */
        private static boolean holdsTransactionalResource() {
            for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
                if (resource instanceof ResourceHolderSupport holder && holder.isSynchronizedWithTransaction()) {
                    return true;
                }
            }
            return false;
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

        static void afterCommitUnlessUndone(Runnable action) {
            TransactionSynchronizationManager.registerSynchronization(new AfterCommitUnlessUndone(action));
        }

        /**
         * The work before its registration is undone by a rollback to a savepoint it has not seen taken: that
         * savepoint was taken before it was registered. A rollback to one taken after it leaves that work in.
         */
        private static final class AfterCommitUnlessUndone implements TransactionSynchronization {

            private final Runnable action;
            private final Set<Object> savepointsSince = Collections.newSetFromMap(new IdentityHashMap<>());
            private boolean undone;

            AfterCommitUnlessUndone(Runnable action) {
                this.action = action;
            }

            @Override
            public void savepoint(Object savepoint) {
                savepointsSince.add(savepoint);
            }

            @Override
            public void savepointRollback(Object savepoint) {
                if (!savepointsSince.contains(savepoint)) {
                    undone = true;
                }
            }

            @Override
            public void afterCommit() {
                if (!undone) {
                    action.run();
                }
            }
        }
    }
}
