package io.bloomguard.guard;

import io.bloomguard.registry.CheckResult;
import io.bloomguard.registry.UnkeyedWrites;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Runs {@code @BloomGuarded} around a call; {@code @BloomPut} keys are put by {@link KeysInTransactionInterceptor},
 * inside the method's transaction.
 *
 * <p>The blocking adapter of the guard's one decision ({@link GuardDecision}): it asks the filter on the calling
 * thread, and hands a method that returns a Reactor {@code Mono} or {@code Flux} to {@link ReactiveGuard}, which asks
 * when it is subscribed to. Every rule of the decision (the key, when the answer decides the call, what is counted and
 * observed) is the decision's. A Kotlin {@code suspend} function or {@code Flow} result takes the reactive path too, as the
 * Reactor call it is behind the proxy ({@code CoroutineCalls}).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BloomGuardInterceptor implements MethodInterceptor, SmartInitializingSingleton {

    private final BloomOperationSource source;
    private final GuardDecision decision = new GuardDecision();
    private final @Nullable ObjectProvider<CheckObserver> observerProvider;

    public BloomGuardInterceptor(BloomOperationSource source) {
        this(source, null);
    }

    /** A guard whose checks {@code observer}, if the application has one, watches once every singleton exists. */
    public BloomGuardInterceptor(BloomOperationSource source, @Nullable ObjectProvider<CheckObserver> observer) {
        this.source = source;
        this.observerProvider = observer;
    }

    /**
     * Only now: this interceptor is made while bean post-processors are still being created, and an observer (or
     * its observation registry) made then would miss theirs, which give the registry its handlers.
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (observerProvider != null) {
            decision.watchedBy(observerProvider.getIfUnique());
        }
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        GuardOperation guard = source.operationsFor(invocation.getMethod(), targetClass(invocation)).guard();
        if (guard == null) {
            return invocation.proceed();
        }
        return CoroutineCalls.returnsFlow(invocation)
                ? CoroutineCalls.asFlow(invocation, asFlux -> guard(guard, asFlux)) : guard(guard, invocation);
    }

    /**
     * The class the proxy's advisors were matched against, so that the operations found here are the ones
     * validated at startup. For a Spring Data repository that is its JDK proxy class, which names the user's
     * repository interface; {@code AopUtils.getTargetClass} would see through that proxy to the generic
     * implementation class instead.
     */
    static @Nullable Class<?> targetClass(MethodInvocation invocation) {
        if (invocation instanceof ProxyMethodInvocation proxied && proxied.getProxy() instanceof Advised advised) {
            Class<?> matched = advised.getTargetSource().getTargetClass();
            if (matched != null) {
                return matched;
            }
        }
        Object target = invocation.getThis();
        return (target != null) ? AopUtils.getTargetClass(target) : null;
    }

    private @Nullable Object guard(GuardOperation guard, MethodInvocation invocation) throws Throwable {
        if (guard.reactive()) {
            Object guarded = ReactiveGuard.guard(decision, guard, invocation);
            return CoroutineCalls.suspending(invocation)
                    ? CoroutineCalls.withEmptyValue(guarded, guard, invocation.getArguments()) : guarded;
        }
        if (guard.batch() != null) {
            return PrunedLookup.guard(decision, guard, invocation);
        }
        Object[] args = invocation.getArguments();
        CheckObserver.Check check = decision.startCheck(guard, null);
        Object key = decision.keyToCheck(guard, args, check);
        if (key == null) {
            return invocation.proceed();
        }
        GuardDecision.Verdict verdict = ask(guard, key, check);
        if (!verdict.through()) {
            return guard.emptyValue().apply(args);
        }
        Object result = invocation.proceed();
        decision.countAnswer(guard, verdict, result);
        return result;
    }

    /**
     * Asks the filter on the calling thread (which may wait, at most {@link UnkeyedWrites#MAX_WAIT}, for writes under
     * way whose rows may be visible to put their keys), and hands the answer to the decision.
     */
    private GuardDecision.Verdict ask(GuardOperation guard, Object key, CheckObserver.@Nullable Check check) {
        CheckResult result;
        try {
            result = guard.filter().check(key);
        }
        catch (IllegalArgumentException ex) {
            return decision.unhashable(guard, ex, check);
        }
        catch (RuntimeException ex) {
            return decision.failed(guard, ex, check);
        }
        return decision.decide(guard, key, result, check);
    }
}
