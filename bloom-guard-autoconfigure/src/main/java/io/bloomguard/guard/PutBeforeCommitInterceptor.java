package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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

    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private static final @Nullable Class<?> TRANSACTION_INTERCEPTOR =
            EmptyValues.optionalClass("org.springframework.transaction.interceptor.TransactionInterceptor");

    private final Set<Method> orderChecked = ConcurrentHashMap.newKeySet();

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        PendingPuts.PendingPut pending = PendingPuts.claim(invocation);
        if (pending == null) {
            return invocation.proceed();
        }
        try {
            if (pending.operation().sharedFilter() && orderChecked.add(invocation.getMethod())) {
                warnIfOutsideTransaction(invocation, pending.operation());
            }
            Object result = invocation.proceed();
            KeyPuts.putFromResult(pending.operation(), invocation.getArguments(), result);
            pending.recordKeyed(result);
            return result;
        }
        finally {
            pending.release();
        }
    }

    /**
     * Spring's transaction advisor and this one have the same precedence, and run in the order they were
     * declared. If a transaction advisor was declared after bloom-guard's, it runs inside this interceptor and
     * the key goes in after the commit: say so once, rather than leave a window nobody knows about.
     */
    private void warnIfOutsideTransaction(MethodInvocation invocation, PutOperation put) {
        if (TRANSACTION_INTERCEPTOR == null || !(invocation instanceof ProxyMethodInvocation proxied)
                || !(proxied.getProxy() instanceof Advised advised)) {
            return;
        }
        boolean afterThis = false;
        for (Advisor advisor : advised.getAdvisors()) {
            if (advisor.getAdvice() == this) {
                afterThis = true;
            }
            else if (afterThis && TRANSACTION_INTERCEPTOR.isInstance(advisor.getAdvice())) {
                logger.warn(put.description() + " runs its @BloomPut outside its transaction, so its key reaches filter '"
                        + put.filter().name() + "' after the commit: a transaction advisor comes after bloom-guard's "
                        + "with the same precedence. Give it a higher precedence (a lower order value).");
                return;
            }
        }
    }
}
