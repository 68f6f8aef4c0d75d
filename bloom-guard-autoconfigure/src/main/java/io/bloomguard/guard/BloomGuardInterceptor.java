package io.bloomguard.guard;

import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code @BloomGuarded} and {@code @BloomPut} around a call.
 *
 * <p>A guarded call is rejected only when its filter is ready, no write keyed on a result is under way, the
 * mode is {@code enforce} and the filter says "absent". Anything unexpected (no key, a key of an unsupported
 * type, a backend error under the {@code allow} policy) lets the call through: a wasted query is the price
 * of never answering "not found" for a record that exists.
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private static final boolean SPRING_TX = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            BloomGuardInterceptor.class.getClassLoader());

    private final BloomOperationSource source;
    private final Set<String> reportedKeyProblems = ConcurrentHashMap.newKeySet();

    public BloomGuardInterceptor(BloomOperationSource source) {
        this.source = source;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
        BloomOperationSource.Operations operations = source.operationsFor(invocation.getMethod(), targetClass);
        GuardOperation guard = operations.guard();
        if (guard != null) {
            return guard(guard, operations.put(), invocation);
        }
        PutOperation put = operations.put();
        return (put != null) ? proceedAndPut(put, invocation) : invocation.proceed();
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
        Object key = guard.key().evaluate(invocation.getMethod(), invocation.getArguments(), null);
        if (key == null) {
            counters.skipped();
            return proceed(put, invocation);
        }
        boolean mightContain;
        try {
            mightContain = filter.backendMightContain(key);
        }
        catch (IllegalArgumentException ex) {
            reportKeyProblem(guard.description(), ex);
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
            if (mode == GuardMode.ENFORCE && EmptyValues.isEmpty(result)) {
                counters.falsePositive();
            }
            return result;
        }
        if (mode == GuardMode.SHADOW) {
            counters.shadowRejection();
            Object result = proceed(put, invocation);
            if (!EmptyValues.isEmpty(result)) {
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
        Method method = invocation.getMethod();
        Object[] args = invocation.getArguments();
        NamedBloomFilter filter = put.filter();
        if (!put.key().usesResult()) {
            Object known = put.key().evaluate(method, args, null);
            if (known != null) {
                // Known up front: put before the write, so no reader can see the record without the key.
                putKeys(put, known);
                return invocation.proceed();
            }
            // Not known yet, e.g. #user.id before the database assigns it to the entity passed in: it is
            // read again once the method returns, exactly like a key taken from the result.
        }
        if (SPRING_TX && TransactionSynchronizationManager.isActualTransactionActive()) {
            // The surrounding transaction commits after this returns, so the put lands before the commit.
            Object result = invocation.proceed();
            putKeys(put, put.key().evaluate(method, args, result));
            return result;
        }
        // The method may commit on its own before its result (and so the key) is known: hold off rejections
        // on this filter until the key is in.
        filter.beginWrite();
        try {
            Object result = invocation.proceed();
            putKeys(put, put.key().evaluate(method, args, result));
            return result;
        }
        finally {
            filter.endWrite();
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
            // A key that did not reach the filter would be rejected from now on: stop trusting the filter.
            filter.counters().backendError();
            filter.transitionTo(FilterState.FAILED);
            logger.error("Filter '" + filter.name() + "' could not add a key written by " + put.description()
                    + "; it no longer rejects anything until it is loaded again", ex);
            throw ex;
        }
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

    private void reportKeyProblem(String description, IllegalArgumentException ex) {
        if (reportedKeyProblems.add(description)) {
            logger.error(description + " computed a key the filter cannot hash, so its calls are not guarded: "
                    + ex.getMessage());
        }
    }
}
