package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;

/**
 * Where a write keyed on its result runs, so that its key reaches a shared filter before the row is committed.
 *
 * <p>The guard's advisor runs outside a method's own transaction (so that a rejected call costs none), and
 * outside the one a Spring Data repository opens inside itself: the method commits, and only then is its key
 * known and put. Another instance reading the row in between (told of it by an event sent at the commit, say)
 * would be rejected. Opening the method's transaction around the call instead, which the method then joins,
 * puts the key before the commit. This interface keeps the guard free of Spring's transaction classes, which
 * are optional.
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

    /** Runs a write and its put, in a transaction when none is active. */
    @FunctionalInterface
    interface WriteScope {

        @Nullable Object run(Write write) throws Throwable;
    }

    /** A call and its put. */
    @FunctionalInterface
    interface Write {

        @Nullable Object run() throws Throwable;
    }
}
