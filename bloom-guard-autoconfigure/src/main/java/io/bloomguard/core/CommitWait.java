package io.bloomguard.core;

import java.util.concurrent.locks.LockSupport;

/**
 * A wait a put owes before the write it guards may be seen: a shared filter whose other instances answer absent keys
 * from a leased copy ({@code redis.near-copy: leased}) must not have the row committed until their leases have
 * lapsed. Inside a transaction the wait is deferred to its commit (one wait per transaction, the longest any of its
 * puts owes), where the guard installs a {@link Deferral}; outside one, the put waits before it returns.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * <p>Usage: {@code CommitWait.until(System.nanoTime() + wait);}
 * @hidden
 */
public final class CommitWait {

    /** Takes a wait over for the transaction active on the calling thread, if there is one. */
    @FunctionalInterface
    public interface Deferral {

        /**
         * @param notBefore the {@code System.nanoTime()} before which the transaction must not commit
         * @return whether a transaction took it; {@code false} has the caller wait now
         */
        boolean defer(long notBefore);
    }

    private static volatile Deferral deferral = notBefore -> false;

    private CommitWait() {
    }

    /** Where puts inside a transaction defer their wait; installed once, where spring-tx is present. */
    public static void install(Deferral transactions) {
        deferral = transactions;
    }

    /** Waits until {@code notBefore}, or has the active transaction wait for it before it commits. */
    public static void until(long notBefore) {
        if (!deferral.defer(notBefore)) {
            waitUntil(notBefore);
        }
    }

    /**
     * Waits until {@code System.nanoTime()} passes {@code notBefore}; an interrupt does not cut it short (the commit
     * that follows would break a lease), and is kept for the caller.
     */
    public static void waitUntil(long notBefore) {
        boolean interrupted = false;
        for (long left = notBefore - System.nanoTime(); left > 0; left = notBefore - System.nanoTime()) {
            LockSupport.parkNanos(left);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
