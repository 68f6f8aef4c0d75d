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

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
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
 * <p>A write whose key cannot reach the filter (its key expression fails, or the filter refuses the key)
 * stops the filter from rejecting, and does not fail the write: the record exists, so the filter is what is
 * now wrong.
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final BloomOperationSource source;
    private final Set<String> reportedKeyProblems = ConcurrentHashMap.newKeySet();

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
        NamedBloomFilter filter = guard.filter();
        FilterCounters counters = filter.counters();
        GuardMode mode = filter.spec().mode();
        // Read trust before the bits: a write that committed before this call began has either finished its
        // put (so the bits are set) or is still counted in flight (so trust is false).
        if (mode == GuardMode.OFF || !filter.trustedToReject()) {
            counters.skipped();
            return proceed(put, invocation);
        }
        Object key;
        try {
            key = guard.key().evaluate(invocation.getArguments(), null);
        }
        catch (RuntimeException ex) {
            reportKeyProblem(guard.description(), "could not compute its key", ex);
            counters.skipped();
            return proceed(put, invocation);
        }
        if (key == null) {
            counters.skipped();
            return proceed(put, invocation);
        }
        boolean mightContain;
        try {
            mightContain = filter.backendMightContain(key);
        }
        catch (IllegalArgumentException ex) {
            reportKeyProblem(guard.description(), "computed a key the filter cannot hash", ex);
            counters.skipped();
            return proceed(put, invocation);
        }
        catch (RuntimeException ex) {
            counters.backendError();
            switch (filter.spec().onBackendFailure()) {
                case REJECT:
                    return guard.emptyValue().get();
                case THROW:
                    throw ex;
                default:
                    logger.debug("Filter '" + filter.name() + "' failed a check; letting the call through", ex);
                    return proceed(put, invocation);
            }
        }
        if (mightContain) {
            counters.passed();
            Object result = proceed(put, invocation);
            if (mode == GuardMode.ENFORCE && guard.answersWithValue() && EmptyValues.isEmpty(result)) {
                counters.falsePositive();
            }
            return result;
        }
        if (mode == GuardMode.SHADOW) {
            counters.shadowRejection();
            Object result = proceed(put, invocation);
            if (guard.answersWithValue() && EmptyValues.isFound(result)) {
                counters.shadowFalseNegative();
                logger.warn("Filter '" + filter.name() + "' (shadow mode) would have rejected key '" + key + "' in "
                        + guard.description() + ", which exists: the filter is missing keys");
            }
            return result;
        }
        counters.rejected();
        return guard.emptyValue().get();
    }

    private @Nullable Object proceed(@Nullable PutOperation put, MethodInvocation invocation) throws Throwable {
        return (put != null) ? proceedAndPut(put, invocation) : invocation.proceed();
    }

    private @Nullable Object proceedAndPut(PutOperation put, MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        NamedBloomFilter filter = put.filter();
        if (!put.key().usesResult()) {
            Object known = keyBeforeWrite(put, args);
            if (known != null) {
                // Known up front: put before the write, so no reader can see the record without the key.
                putKeys(put, known);
                return invocation.proceed();
            }
            // Not known yet, e.g. #user.id before the database assigns it to the entity passed in: it is
            // read again once the method returns, exactly like a key taken from the result.
        }
        // The key is known only once the method returns, and the record may be committed before that: by the
        // method itself (a repository's save, a REQUIRES_NEW method inside the caller's transaction) or by
        // its own auto-committed statements. Until the key is in, the filter holds off rejecting anything.
        // For a shared filter, other instances do not see that hold: the write then runs in its transaction begun
        // here, so that the put lands before the commit (see WriteTransactions).
        filter.beginWrite();
        try {
            WriteTransactions.WriteScope scope = put.writeScope();
            return (scope != null) ? scope.run(() -> writeThenPut(put, invocation, args))
                    : writeThenPut(put, invocation, args);
        }
        finally {
            filter.endWrite();
        }
    }

    private @Nullable Object writeThenPut(PutOperation put, MethodInvocation invocation, Object[] args)
            throws Throwable {
        Object result = invocation.proceed();
        Object keys;
        try {
            keys = put.key().evaluate(args, result);
        }
        catch (RuntimeException ex) {
            if (result == null) {
                return null; // no result, nothing written to key: the same as a key expression of #result
            }
            keyLost(put, "its key expression failed on the method's result", "Fix the @BloomPut key expression", ex);
            return result;
        }
        putKeys(put, keys);
        return result;
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

    private void putKeys(PutOperation put, @Nullable Object keys) {
        if (keys == null) {
            return;
        }
        NamedBloomFilter filter = put.filter();
        try {
            if (keys instanceof Iterable<?> || keys.getClass().isArray()) {
                filter.putAll(nonNullKeys(keys));
            }
            else {
                filter.put(keys);
            }
        }
        catch (RuntimeException ex) {
            filter.counters().backendError();
            keyLost(put, "the filter could not add its key", (ex instanceof IllegalArgumentException)
                    ? "Fix the @BloomPut key expression so that it yields a whole number, String, UUID or enum" : "", ex);
            if (filter.spec().onBackendFailure() == BackendFailurePolicy.THROW) {
                throw ex;
            }
        }
    }

    /**
     * A record was (or may have been) written without its key reaching the filter, which would reject it from
     * now on: the filter stops rejecting until it holds every key again, and the log says why.
     */
    private static void keyLost(PutOperation put, String why, String fix, RuntimeException ex) {
        NamedBloomFilter filter = put.filter();
        String missing = "Filter '" + filter.name() + "' is missing a key written by " + put.description() + ": "
                + why + " (" + ex.getMessage() + ").";
        boolean recovers = filter.markIncomplete(missing);
        logger.error(missing + (recovers
                ? " No instance rejects anything with it until it has been rebuilt from its key source, which follows."
                : " It lets every call through from now on, until the application restarts.")
                + (fix.isEmpty() ? "" : " " + fix), ex);
    }

    /** The keys of a collection or array result, nulls left out: one batch for the filter. */
    private static List<Object> nonNullKeys(Object keys) {
        List<Object> batch = new ArrayList<>();
        if (keys instanceof Iterable<?> iterable) {
            for (Object key : iterable) {
                if (key != null) {
                    batch.add(key);
                }
            }
        }
        else {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                Object key = Array.get(keys, i);
                if (key != null) {
                    batch.add(key);
                }
            }
        }
        return batch;
    }

    /** Logs, once per method and problem, why calls of a guarded method go unguarded. */
    private void reportKeyProblem(String description, String problem, RuntimeException ex) {
        if (reportedKeyProblems.add(description + ": " + problem)) {
            logger.error(description + " " + problem + ", so such calls are not guarded: " + ex.getMessage());
        }
    }
}
