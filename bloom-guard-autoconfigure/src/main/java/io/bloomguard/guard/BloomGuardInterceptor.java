package io.bloomguard.guard;

import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code @BloomGuarded} and {@code @BloomPut} around a call.
 *
 * <p>A guarded call is rejected only when its filter is ready, no write keyed on a result is under way, the
 * mode is {@code enforce} and the filter says "absent". Anything unexpected (no key, a key expression that
 * fails, a key of an unsupported type, a backend error under the {@code allow} policy) lets the call through:
 * a wasted query is the price of never answering "not found" for a record that exists.
 *
 * <p>A {@code @BloomPut} key known from the arguments is put before the call. One taken from the result is put
 * by {@link PutBeforeCommitInterceptor} where it sits inside the call (inside the transaction interceptor when
 * there is one), and here only if no such advice claimed the call or the result now gives other keys
 * ({@link KeyPuts}).
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final BloomOperationSource source;
    private final Set<String> reportedKeyProblems = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedLatePuts = ConcurrentHashMap.newKeySet();

    public BloomGuardInterceptor(BloomOperationSource source) {
        this.source = source;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        BloomOperationSource.Operations operations = source.operationsFor(invocation.getMethod(), targetClass(invocation));
        GuardOperation guard = operations.guard();
        if (guard != null) {
            return guard(guard, operations.put(), invocation);
        }
        PutOperation put = operations.put();
        return (put != null) ? proceedAndPut(put, invocation) : invocation.proceed();
    }

    /**
     * The class the proxy's advisors were matched against, so that the operations found here are the ones
     * validated at startup. For a Spring Data repository that is its JDK proxy class, which names the user's
     * repository interface; {@code AopUtils.getTargetClass} would see through that proxy to the generic
     * implementation class instead.
     */
    private static @Nullable Class<?> targetClass(MethodInvocation invocation) {
        if (invocation instanceof ProxyMethodInvocation proxied && proxied.getProxy() instanceof Advised advised) {
            Class<?> matched = advised.getTargetSource().getTargetClass();
            if (matched != null) {
                return matched;
            }
        }
        Object target = invocation.getThis();
        return (target != null) ? AopUtils.getTargetClass(target) : null;
    }

    private @Nullable Object guard(GuardOperation guard, @Nullable PutOperation put, MethodInvocation invocation)
            throws Throwable {
        if (guard.reactive()) {
            return ReactiveGuard.guard(this, guard, put, invocation);
        }
        Object key = keyToCheck(guard, invocation.getArguments());
        if (key == null) {
            return proceed(put, invocation);
        }
        boolean mightContain;
        try {
            mightContain = guard.filter().backendMightContain(key);
        }
        catch (IllegalArgumentException ex) {
            keyUnhashable(guard, ex);
            return proceed(put, invocation);
        }
        catch (RuntimeException ex) {
            return callsThroughAfter(guard, ex) ? proceed(put, invocation) : guard.emptyValue().apply(invocation.getArguments());
        }
        if (!callsThrough(guard, mightContain)) {
            return guard.emptyValue().apply(invocation.getArguments());
        }
        Object result = proceed(put, invocation);
        countAnswer(guard, key, mightContain, result);
        return result;
    }

    /**
     * The key to check a call with, or {@code null} when the call goes through unchecked (counted as skipped):
     * the filter is off, not ready or holding off for a write, or the key cannot be computed.
     */
    @Nullable Object keyToCheck(GuardOperation guard, Object[] args) {
        NamedBloomFilter filter = guard.filter();
        // Read trust before the bits: a write that committed before this call began has either finished its
        // put (so the bits are set) or is still counted in flight (so trust is false).
        if (filter.spec().mode() == GuardMode.OFF || !filter.trustedToReject()) {
            filter.counters().skipped();
            return null;
        }
        Object key;
        try {
            key = guard.key().evaluate(args, null);
        }
        catch (RuntimeException ex) {
            reportKeyProblem(guard.description(), "could not compute its key", ex);
            key = null;
        }
        if (key == null) {
            filter.counters().skipped();
        }
        return key;
    }

    /** A key the filter cannot hash: the call goes through unchecked, and the problem is logged once. */
    void keyUnhashable(GuardOperation guard, IllegalArgumentException ex) {
        reportKeyProblem(guard.description(), "computed a key the filter cannot hash", ex);
        guard.filter().counters().skipped();
    }

    /**
     * Whether a call whose check failed goes through, by the filter's {@code on-backend-failure}: {@code allow}
     * yes, {@code reject} no (it answers empty), {@code throw} passes the failure on. A filter in {@code shadow}
     * mode always lets it through: it only watches, and must not answer differently from the method, not even
     * when its backend fails.
     */
    boolean callsThroughAfter(GuardOperation guard, RuntimeException failure) {
        NamedBloomFilter filter = guard.filter();
        filter.counters().backendError();
        BackendFailurePolicy policy = (filter.spec().mode() == GuardMode.SHADOW)
                ? BackendFailurePolicy.ALLOW : filter.spec().onBackendFailure();
        switch (policy) {
            case REJECT:
                return false;
            case THROW:
                throw failure;
            default:
                logger.debug("Filter '" + filter.name() + "' failed a check; letting the call through", failure);
                return true;
        }
    }

    /** Whether a checked call goes through: the filter said "might contain", or it only shadows. Counted. */
    static boolean callsThrough(GuardOperation guard, boolean mightContain) {
        FilterCounters counters = guard.filter().counters();
        if (mightContain) {
            counters.passed();
            return true;
        }
        if (guard.filter().spec().mode() == GuardMode.SHADOW) {
            counters.shadowRejection();
            return true;
        }
        counters.rejected();
        return false;
    }

    /**
     * Counts what the filter's answer turned out to be, where the result shows it: a "might contain" that found
     * nothing (a false positive), a shadow "absent" that found something (a false negative, also logged).
     */
    static void countAnswer(GuardOperation guard, Object key, boolean mightContain, @Nullable Object result) {
        // Only the judgement the answer needs: a "might contain" can only be a false positive, an "absent" a false negative.
        boolean empty = mightContain && EmptyValues.isEmpty(result);
        boolean found = !mightContain && EmptyValues.isFound(result);
        countAnswer(guard, key, mightContain, empty, found);
    }

    /**
     * As above, for a result already judged: {@code empty} when it says "not found", {@code found} when it says
     * "found" (a stream says neither until it is consumed).
     */
    static void countAnswer(GuardOperation guard, Object key, boolean mightContain, boolean empty, boolean found) {
        NamedBloomFilter filter = guard.filter();
        if (!guard.answersWithValue()) {
            return;
        }
        if (mightContain) {
            if (filter.spec().mode() == GuardMode.ENFORCE && empty) {
                filter.counters().falsePositive();
            }
        }
        else if (found) {
            filter.counters().shadowFalseNegative();
            logger.warn("Filter '" + filter.name() + "' (shadow mode) would have rejected key '" + key + "' in "
                    + guard.description() + ", which exists: the filter is missing keys");
        }
    }

    @Nullable Object proceed(@Nullable PutOperation put, MethodInvocation invocation) throws Throwable {
        return (put != null) ? proceedAndPut(put, invocation) : invocation.proceed();
    }

    private @Nullable Object proceedAndPut(PutOperation put, MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        NamedBloomFilter filter = put.filter();
        if (!put.key().usesResult()) {
            Object known = keyBeforeWrite(put, args);
            if (known != null) {
                // Known up front: put before the write, so no reader can see the record without the key.
                KeyPuts.putKeys(put, known);
                return invocation.proceed();
            }
            // Not known yet, e.g. #user.id before the database assigns it to the entity passed in: it is
            // read again once the method returns, exactly like a key taken from the result.
        }
        if (put.kind().deferred()) {
            return proceedAndPutOnDelivery(put, invocation);
        }
        // The key is known only once the method returns. The advice inside the method's transaction puts it
        // before the commit (see PendingPuts); but the record may be committed earlier still, by a transaction
        // the method's code begins (a TransactionTemplate, another bean's REQUIRES_NEW method) or by auto-committed
        // statements. Until the key is in, this instance's filter holds off rejecting. (Other instances sharing a
        // filter do not see that hold.)
        filter.beginWrite();
        PendingPuts.PendingPut pending = PendingPuts.begin(invocation, put);
        try {
            Object result;
            try {
                result = invocation.proceed();
            }
            catch (Throwable ex) {
                if (!pending.everClaimed()) { // else the advice inside has dealt with it (InterruptedWrites)
                    InterruptedWrites.putKeyFromArguments(put, args);
                }
                throw ex;
            }
            // Put here unless the advice inside put the very keys the result now gives: it may not have run, an
            // advice may have returned another result, or the key may have changed since, e.g. a column the
            // database fills only when the insert is flushed at the commit, null when the advice read it.
            Object keys = KeyPuts.keysOf(put, args, result);
            if (keys == null && !put.key().usesResult() && KeyPuts.yieldsNull(put, args, result)) {
                reportNullArgumentKey(put);
            }
            if (!pending.everClaimed() || !pending.keyed(keys)) {
                if (put.sharedFilter()) {
                    reportLatePut(put, "after it returns, not inside its transaction", pending.everClaimed()
                            ? "its key was not known inside its transaction (null there, or changed since: a column"
                                    + " the database fills in when the insert is flushed at the commit, say)"
                            : "bloom-guard's interceptor is not inside this call (a repository built in code rather"
                                    + " than by Spring Data's repository factory bean, or another proxy between"
                                    + " bloom-guard's and the repository's)");
                }
                KeyPuts.putFromResult(put, args, result);
            }
            return result;
        }
        finally {
            PendingPuts.end(pending);
            filter.endWrite();
        }
    }

    /**
     * A method returning a promise ({@link DeferredPuts}): the keys are put when it delivers, not now. The call
     * itself may already write (a {@code Mono.just(repository.save(user))}), so it holds off rejecting too, and a
     * key from the arguments that the call has filled in is put at once.
     */
    private @Nullable Object proceedAndPutOnDelivery(PutOperation put, MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        NamedBloomFilter filter = put.filter();
        filter.beginWrite();
        try {
            Object result = invocation.proceed();
            if (!put.key().usesResult()) {
                Object filledIn = KeyPuts.keysOf(put, args, null);
                if (filledIn != null) {
                    KeyPuts.putKeys(put, filledIn);
                    return result;
                }
            }
            return DeferredPuts.watch(invocation, put, result, why -> reportLatePut(put, "after what it wrote may have been committed", why));
        }
        finally {
            filter.endWrite();
        }
    }

    /**
     * Says once per method that a shared filter's key goes in only after the write may have committed: other
     * instances can read the row a moment before its key. (This instance holds off rejecting meanwhile.)
     */
    private void reportLatePut(PutOperation put, String when, String why) {
        if (!reportedLatePuts.add(put.description())) {
            return;
        }
        logger.warn(put.description() + " puts its @BloomPut key into shared filter '" + put.filter().name()
                + "' " + when + ", so other instances can read its row a moment"
                + " before the key: " + why + ". See the README, \"How the guard behaves\", \"The key is in before the commit\".");
    }

    /**
     * Says once per method that a key from the arguments, unknown before the call, was still null after it: nothing
     * was put. Either the key may be null (an optional attribute: no lookup can ask for it), or the write gave it
     * to something the expression does not read, and the record would be rejected.
     */
    private void reportNullArgumentKey(PutOperation put) {
        if (reportedKeyProblems.add(put.description() + ": null argument key")) {
            logger.warn(put.description() + ": its @BloomPut key was null before the method ran and is still null after"
                    + " it returned, so no key was put into filter '" + put.filter().name() + "'. If the write gives the"
                    + " record its key somewhere the expression does not read (an id set on a new instance that the"
                    + " method returns, as Spring Data JDBC does for immutable entities), that record will be rejected:"
                    + " key the @BloomPut on #result instead (e.g. #result.id). A key that may be null (an optional"
                    + " attribute) needs no change.");
        }
    }

    /** The key computed from the arguments before the method runs, or null if they do not hold it yet. */
    private static @Nullable Object keyBeforeWrite(PutOperation put, Object[] args) {
        try {
            return put.key().evaluate(args, null);
        }
        catch (RuntimeException ex) {
            return null; // e.g. #user.address.id before the method fills in the address: tried again after it
        }
    }

    /** Logs, once per method and problem, why calls of a guarded method go unguarded. */
    private void reportKeyProblem(String description, String problem, RuntimeException ex) {
        if (reportedKeyProblems.add(description + ": " + problem)) {
            logger.error(description + " " + problem + ", so such calls are not guarded: " + ex.getMessage());
        }
    }
}
