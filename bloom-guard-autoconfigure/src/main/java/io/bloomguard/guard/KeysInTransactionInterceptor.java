package io.bloomguard.guard;

import io.bloomguard.registry.UnkeyedWrites;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

import java.util.function.Function;

/**
 * Keeps a filter's keys in step with the transaction of the method that writes: puts the keys of a
 * {@code @BloomPut} call from inside its transaction, so that a key is in the filter before its row is committed
 * ({@link KeyedWrite}, one per call); and removes those of a {@code @BloomRemove} call once its transaction has
 * committed, if the delete provably deleted their rows ({@link RemoveOperation}).
 *
 * <p>Where a row may be visible before its key is in, the write counts as {@linkplain UnkeyedWrites unkeyed} until
 * the put: lookups the filter answers "absent" meanwhile wait for it and ask again. No write stops the guard from
 * rejecting other keys.
 *
 * <p>It leaves the transaction as the method declared it: it begins none, and a put that fails under
 * {@code on-add-failure: fail} or {@code on-backend-failure: throw} fails the method, whose transaction then rolls
 * back by its own rules. Placed inside the transaction interceptor by {@link KeysInTransactionAdvisor} on classes and
 * by a repository proxy post-processor on Spring Data repositories.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class KeysInTransactionInterceptor implements MethodInterceptor {

    private final BloomOperationSource source;
    private final Function<MethodInvocation, @Nullable Class<?>> targetClass;
    private final WriteWarnings warnings = new WriteWarnings();

    private KeysInTransactionInterceptor(BloomOperationSource source,
            Function<MethodInvocation, @Nullable Class<?>> targetClass) {
        this.source = source;
        this.targetClass = targetClass;
    }

    /** For the beans of classes, advised as the guard's own advisor advises them. */
    public static KeysInTransactionInterceptor forClasses(BloomOperationSource source) {
        return new KeysInTransactionInterceptor(source, BloomGuardInterceptor::targetClass);
    }

    /**
     * For Spring Data repositories, inside the repository's own proxy: the operations are those found for the class
     * of that proxy, which names the user's repository interface, as the guard in front of it finds them.
     */
    public static KeysInTransactionInterceptor forRepositories(BloomOperationSource source) {
        return new KeysInTransactionInterceptor(source,
                invocation -> (invocation instanceof ProxyMethodInvocation proxied)
                        ? proxied.getProxy().getClass() : BloomGuardInterceptor.targetClass(invocation));
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        MethodOperations operations = source.operationsFor(invocation.getMethod(), targetClass.apply(invocation));
        RemoveOperation remove = operations.remove();
        long epoch = (remove != null) ? remove.epochBeforeDelete() : 0L;
        Object result = put(operations.put(), invocation); // a delete that throws removes nothing: its row may be there
        if (remove != null) {
            remove.removeOnceCommitted(invocation.getArguments(), result, epoch);
        }
        return result;
    }

    private @Nullable Object put(@Nullable PutOperation put, MethodInvocation invocation) throws Throwable {
        if (put == null) {
            return invocation.proceed();
        }
        if (CoroutineCalls.returnsFlow(invocation)) { // keyed as the Flux it is seen as, like a suspend call's Mono
            return CoroutineCalls.asFlow(invocation, asFlux -> keyed(put, asFlux));
        }
        return keyed(put, invocation);
    }

    private @Nullable Object keyed(PutOperation put, MethodInvocation invocation) throws Throwable {
        KeyedWrite write = new KeyedWrite(put, invocation.getArguments(), warnings);
        if (write.putKeysKnownBeforeCall()) {
            Object result = invocation.proceed();
            write.returnedWithKeysPutBefore();
            return result;
        }
        write.begin();
        try {
            Object result;
            try {
                result = invocation.proceed();
            }
            catch (Throwable ex) {
                write.threw(ex);
                throw ex;
            }
            return write.returned(result);
        }
        finally {
            write.end();
        }
    }
}
