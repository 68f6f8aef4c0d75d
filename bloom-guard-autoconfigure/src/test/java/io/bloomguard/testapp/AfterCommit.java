package io.bloomguard.testapp;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Runs an action right after the current transaction commits: a reader told of a new row at that moment. */
public final class AfterCommit {

    private AfterCommit() {
    }

    public static void run(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }
}
