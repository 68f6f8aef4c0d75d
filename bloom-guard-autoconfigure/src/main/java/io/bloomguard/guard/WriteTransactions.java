package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;

/**
 * Where a write keyed on its result runs, so that its key reaches the filter before the row is committed.
 *
 * <p>The guard's advisor runs outside a method's own transaction (so that a rejected call costs none), and
 * outside the one a Spring Data repository opens inside itself: the method commits, and only then is its key
 * known and put. A reader in between (told of the row by an event sent at the commit, say) would be rejected,
 * so without a transaction around the put the filter has to stop rejecting for as long as such a write is in
 * flight, which under a steady stream of writes is always; and a shared filter's other instances would not even
 * see that hold. Opening the method's transaction around the call instead, which the method then joins, puts
 * the key before the commit, and rejections go on. This interface keeps the guard free of Spring's transaction
 * classes, which are optional.
 */
public interface WriteTransactions {

    /** Writes run as they are: no transaction support on the classpath. */
    WriteTransactions NONE = (method, targetClass, repositoryMethod) -> null;

    /**
     * How calls of a method are wrapped, or {@code null} to run them as they are (the method would not run in
     * a transaction of the one transaction manager anyway).
     *
     * @param repositoryMethod a Spring Data repository method, which is transactional inside the repository
     */
    @Nullable WriteScope scopeFor(Method method, @Nullable Class<?> targetClass, boolean repositoryMethod);

    /** Runs a write and its put in a transaction that commits after the put. */
    @FunctionalInterface
    interface WriteScope {

        /**
         * Runs the write inside the caller's transaction, or in one begun here with the method's own rules.
         *
         * @param holdRejections run when the row may become visible before the put: before another transaction
         *                       can commit during the write (the method set this one aside for one of its own,
         *                       {@code REQUIRES_NEW} further down, say), or at once when there is no single
         *                       transaction manager to run the write in
         */
        @Nullable Object run(Write write, Runnable holdRejections) throws Throwable;
    }

    /** A call and its put. */
    @FunctionalInterface
    interface Write {

        @Nullable Object run() throws Throwable;
    }
}
