package io.bloomguard.guard;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Puts a {@code @BloomPut} key taken from the result as the method returns, from inside the method's
 * transaction, so that the key is in the filter before the row is committed.
 *
 * <p>It acts only on a call the guard has announced ({@link PendingPuts}; for a {@code Mono} or {@code Flux},
 * {@link DeferredPuts}), and leaves the transaction as the
 * method declared it: it begins none, and a put that fails under {@code on-backend-failure: throw} fails the
 * method, whose transaction then rolls back by its own rules. A call that throws before it gives its key is
 * watched to the end of its transaction ({@link InterruptedWrites}). Placed inside the transaction interceptor by
 * {@link PutBeforeCommitAdvisor} on classes and by a repository proxy post-processor on Spring Data repositories.
 */
public final class PutBeforeCommitInterceptor implements MethodInterceptor {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final Set<String> reportedOutsideTransaction = ConcurrentHashMap.newKeySet();

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        PendingPuts.PendingPut pending = PendingPuts.claim(invocation);
        if (pending == null) {
            // A Mono or Flux is announced not on this thread but in its subscriber's context, looked at once subscribed.
            return DeferredPuts.putInside(invocation, invocation.proceed());
        }
        try {
            PutOperation put = pending.operation();
            Object result;
            try {
                result = invocation.proceed();
            }
            catch (Throwable ex) {
                InterruptedWrites.threw(put, invocation.getArguments(), ex);
                throw ex;
            }
            if (put.sharedFilter() && !ActiveTransactions.active()
                    && reportedOutsideTransaction.add(put.description())) {
                warnOutsideTransaction(put);
            }
            pending.recordKeyed(KeyPuts.putFromResult(put, invocation.getArguments(), result));
            return result;
        }
        finally {
            pending.release();
        }
    }

    /**
     * With no transaction around this point, whatever the method wrote is committed already: other instances
     * sharing the filter can read the row a moment before its key. Said once per method, with what causes it.
     */
    private static void warnOutsideTransaction(PutOperation put) {
        logger.warn(put.description() + " puts its @BloomPut key into shared filter '" + put.filter().name()
                + "' after its row may be committed, so other instances can read the row a moment before its key:"
                + " no transaction is active where bloom-guard puts it. Make the method @Transactional, or put the"
                + " @BloomPut on the repository method that writes. With transactions woven by AspectJ the same applies;"
                + " a transaction advisor of your own at the lowest precedence, declared after bloom-guard's"
                + " auto-configuration, needs a higher precedence. See the README, \"How the guard behaves\","
                + " \"The key is in before the commit\".");
    }
}
