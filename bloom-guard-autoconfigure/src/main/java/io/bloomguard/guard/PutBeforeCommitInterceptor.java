package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Puts a {@code @BloomPut} key taken from the result as the method returns, from inside the method's
 * transaction, so that the key is in the filter before the row is committed.
 *
 * <p>It acts only on a call the guard has announced ({@link PendingPuts}), and leaves the transaction as the
 * method declared it: it begins none, and a put that fails under {@code on-backend-failure: throw} fails the
 * method, whose transaction then rolls back by its own rules. Placed inside the transaction interceptor by
 * {@link PutBeforeCommitAdvisor} on classes and by a repository proxy post-processor on Spring Data repositories.
 */
public final class PutBeforeCommitInterceptor implements MethodInterceptor {

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        PendingPuts.PendingPut pending = PendingPuts.claim(invocation.getMethod());
        if (pending == null) {
            return invocation.proceed();
        }
        Object result = invocation.proceed();
        KeyPuts.putFromResult(pending.put(), invocation.getArguments(), result);
        return result;
    }
}
