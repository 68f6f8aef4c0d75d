package io.bloomguard.guard;

import io.bloomguard.core.CommitWait;

/**
 * Has puts made inside a Spring-managed transaction wait once, before its commit, rather than each before it returns
 * ({@link CommitWait}): where spring-tx is present.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class TransactionCommitWaits {

    private TransactionCommitWaits() {
    }

    /** Installs the deferral when spring-tx is on the classpath; without it each put waits before it returns. */
    public static void install() {
        if (ActiveTransactions.springTxPresent()) {
            CommitWait.install(KeysPutInTransaction::deferWait);
        }
    }
}
