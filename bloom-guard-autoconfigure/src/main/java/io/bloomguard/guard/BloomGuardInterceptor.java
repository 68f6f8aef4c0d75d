package io.bloomguard.guard;

import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import io.bloomguard.registry.UnkeyedWrites;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code @BloomGuarded} around a call; {@code @BloomPut} keys are put by {@link PutBeforeCommitInterceptor}, inside
 * the method's transaction.
 *
 * <p>A guarded call is rejected only when its filter is ready, the mode is {@code enforce} and the filter says
 * "absent" — and still says so once any write under way whose row may already be visible has put its key
 * ({@link io.bloomguard.registry.UnkeyedWrites}). Anything unexpected (no key, a key expression that fails, a key
 * of an unsupported type, a backend error under the {@code allow} policy) lets the call through: a wasted query
 * is the price of never answering "not found" for a record that exists.
 *
 * <p>Every outcome of a check is counted, and told to the {@link CheckObserver} if there is one, in one place
 * ({@link #decided}).
 */
public final class BloomGuardInterceptor implements MethodInterceptor, SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final BloomOperationSource source;
    private final Set<String> reportedKeyProblems = ConcurrentHashMap.newKeySet();
    private final @Nullable ObjectProvider<CheckObserver> observerProvider;
    private @Nullable CheckObserver observer; // set once, as the context finishes starting: read on every call

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
            observer = observerProvider.getIfUnique();
        }
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        GuardOperation guard = source.operationsFor(invocation.getMethod(), targetClass(invocation)).guard();
        return (guard != null) ? guard(guard, invocation) : invocation.proceed();
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
            return ReactiveGuard.guard(this, guard, invocation);
        }
        CheckObserver.Check check = startCheck(guard, null);
        Object key = keyToCheck(guard, invocation.getArguments(), check);
        if (key == null) {
            return invocation.proceed();
        }
        UnkeyedWrites writes = guard.filter().unkeyedWrites();
        int visibleWrites = writes.visibleCount(); // before the bits: a write that puts its key after is counted
        boolean mightContain;
        try {
            mightContain = guard.filter().backendMightContain(key);
            if (!mightContain && (visibleWrites > 0 || writes.writingOnThisThread())) {
                Boolean absent = absentOnceWritesAreKeyed(guard, key);
                if (absent == null) {
                    decided(guard, check, CheckOutcome.SKIPPED, SkipReason.WRITE_PENDING);
                    return invocation.proceed();
                }
                mightContain = !absent;
            }
        }
        catch (IllegalArgumentException ex) {
            keyUnhashable(guard, ex, check);
            return invocation.proceed();
        }
        catch (RuntimeException ex) {
            return callsThroughAfter(guard, ex, check) ? invocation.proceed()
                    : guard.emptyValue().apply(invocation.getArguments());
        }
        if (!callsThrough(guard, mightContain, check)) {
            return guard.emptyValue().apply(invocation.getArguments());
        }
        Object result = invocation.proceed();
        countAnswer(guard, key, mightContain, result);
        return result;
    }

    /**
     * A key the filter says is absent while a write whose row may be visible has not put its key yet: absent only
     * if the filter still says so once that write has put it. A lookup by the writing thread itself, inside its
     * write, is not decided (its row is there, its key not yet); nor is one whose writes take longer than
     * {@link UnkeyedWrites#MAX_WAIT}.
     *
     * @return whether the key is absent, or {@code null} when the filter cannot decide it
     */
    private static @Nullable Boolean absentOnceWritesAreKeyed(GuardOperation guard, Object key) {
        UnkeyedWrites writes = guard.filter().unkeyedWrites();
        if (writes.writingOnThisThread() || !writes.awaitVisibleWrites()) {
            return null;
        }
        return !guard.filter().backendMightContain(key);
    }

    /**
     * Starts watching a call's check, if anything watches: {@code null} (and nothing made) otherwise.
     *
     * @param parent the observation a reactive subscriber's context holds, or {@code null}
     */
    CheckObserver.@Nullable Check startCheck(GuardOperation guard, @Nullable Object parent) {
        CheckObserver watching = observer;
        return (watching != null) ? watching.start(guard.filter().name(), parent) : null;
    }

    /**
     * What the guard did with a checked call: counted, and told to the call's observation if it has one. Every
     * check ends here, once.
     */
    static void decided(GuardOperation guard, CheckObserver.@Nullable Check check, CheckOutcome outcome,
            @Nullable SkipReason reason) {
        FilterCounters counters = guard.filter().counters();
        switch (outcome) {
            case REJECTED -> {
                if (reason == null) { // a rejection on-backend-failure made is not the filter's: backend.errors has it
                    counters.rejected();
                }
            }
            case PASSED -> counters.passed();
            case SHADOW_REJECTED -> counters.shadowRejection();
            case SKIPPED -> counters.skipped(Objects.requireNonNull(reason, "a skipped call's reason"));
            case FAILED -> { } // thrown to the caller; backend.errors has it
        }
        if (check != null) {
            check.decided(outcome, reason);
        }
    }

    /**
     * The key to check a call with, or {@code null} when the call goes through unchecked (counted as skipped):
     * the filter is off or not ready, or the key cannot be computed.
     */
    @Nullable Object keyToCheck(GuardOperation guard, Object[] args, CheckObserver.@Nullable Check check) {
        NamedBloomFilter filter = guard.filter();
        if (filter.spec().guard().mode() == GuardMode.OFF) {
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.MODE_OFF);
            return null;
        }
        if (!filter.trustedToReject()) {
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NOT_READY);
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
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NO_KEY);
        }
        return key;
    }

    /** A key the filter cannot hash: the call goes through unchecked, and the problem is logged once. */
    void keyUnhashable(GuardOperation guard, IllegalArgumentException ex, CheckObserver.@Nullable Check check) {
        reportKeyProblem(guard.description(), "computed a key the filter cannot hash", ex);
        decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NO_KEY);
    }

    /**
     * Whether a call whose check failed goes through, by the filter's {@code on-backend-failure}: {@code allow}
     * yes, {@code reject} no (it answers empty), {@code throw} passes the failure on. A filter in {@code shadow}
     * mode always lets it through: it only watches, and must not answer differently from the method, not even
     * when its backend fails.
     */
    boolean callsThroughAfter(GuardOperation guard, RuntimeException failure, CheckObserver.@Nullable Check check) {
        NamedBloomFilter filter = guard.filter();
        filter.counters().backendError();
        BackendFailurePolicy policy = (filter.spec().guard().mode() == GuardMode.SHADOW)
                ? BackendFailurePolicy.ALLOW : filter.spec().guard().onBackendFailure();
        switch (policy) {
            case REJECT:
                decided(guard, check, CheckOutcome.REJECTED, SkipReason.BACKEND_FAILURE);
                return false;
            case THROW:
                if (check != null) {
                    check.error(failure);
                }
                decided(guard, check, CheckOutcome.FAILED, SkipReason.BACKEND_FAILURE);
                throw failure;
            default:
                logger.debug("Filter '" + filter.name() + "' failed a check; letting the call through", failure);
                decided(guard, check, CheckOutcome.SKIPPED, SkipReason.BACKEND_FAILURE);
                return true;
        }
    }

    /** Whether a checked call goes through: the filter said "might contain", or it only shadows. Counted. */
    static boolean callsThrough(GuardOperation guard, boolean mightContain, CheckObserver.@Nullable Check check) {
        if (mightContain) {
            decided(guard, check, CheckOutcome.PASSED, null);
            return true;
        }
        if (guard.filter().spec().guard().mode() == GuardMode.SHADOW) {
            decided(guard, check, CheckOutcome.SHADOW_REJECTED, null);
            return true;
        }
        decided(guard, check, CheckOutcome.REJECTED, null);
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
            if (filter.spec().guard().mode() == GuardMode.ENFORCE && empty) {
                filter.counters().falsePositive();
            }
        }
        else if (found) {
            filter.counters().shadowFalseNegative();
            logger.warn("Filter '" + filter.name() + "' (shadow mode) would have rejected key '" + key + "' in "
                    + guard.description() + ", which exists: the filter is missing keys");
        }
    }

    /** Logs, once per method and problem, why calls of a guarded method go unguarded. */
    private void reportKeyProblem(String description, String problem, RuntimeException ex) {
        if (reportedKeyProblems.add(description + ": " + problem)) {
            logger.error(description + " " + problem + ", so such calls are not guarded: " + ex.getMessage());
        }
    }
}
