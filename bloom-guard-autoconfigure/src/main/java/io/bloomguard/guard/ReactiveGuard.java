package io.bloomguard.guard;

import io.bloomguard.guard.GuardDecision.Verdict;
import io.bloomguard.registry.CheckResult;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Guards a method that returns a Reactor {@code Mono} or {@code Flux} when it is subscribed to, not when it is called.
 *
 * <p>A reactive method does its work when subscribed to, which may be well after the call: in
 * {@code insert.then(find)} the lookup is built before the insert and runs after it. Checked at the call, the
 * key would still be absent and the lookup rejected though the row exists by the time it runs. So the call
 * returns at once a publisher that, when subscribed to, checks the key and only then calls the method (or answers
 * empty). The method thus runs at subscription rather than at the call, as it does under Spring's reactive
 * {@code @Cacheable}; each subscription checks anew, as a reactive repository queries anew. It is the reactive adapter
 * of the guard's one decision ({@link GuardDecision}), which holds the key, the rules, the counters and the
 * observation, false positives and shadow false negatives included: counted when the method's publisher has answered.
 *
 * <p>A shared filter answers over the network, and the subscribing thread (in a reactive application, an event
 * loop serving many requests) does not wait for it: the check is sent, and the method is called once the answer
 * is in. Loaded only for such methods, so Reactor stays optional.
 *
 * <p>A watched check ({@link CheckObserver}) starts at subscription and ends once the guard has decided; its parent is
 * the observation the subscriber's context holds, since the calling thread's may be long gone.
 */
final class ReactiveGuard {

    /** Micrometer's {@code ObservationThreadLocalAccessor.KEY}, spelled out so that Micrometer stays optional. */
    static final String OBSERVATION_KEY = "micrometer.observation";

    private ReactiveGuard() {
    }

    static Object guard(GuardDecision decision, GuardOperation guard, MethodInvocation invocation) {
        if (guard.batch() != null) {
            return ReactivePrunedLookup.guard(decision, guard, invocation);
        }
        Mono<Verdict> verdict = Mono.deferContextual(context -> ask(decision, guard, invocation.getArguments(),
                KeyedWriteSubscription.writingIn(context, guard.filter()),
                decision.startCheck(guard, context.getOrDefault(OBSERVATION_KEY, null))));
        if (guard.resultKind() == ResultKind.FLUX) {
            return verdict.flatMapMany(decided -> decided.through()
                    ? counted(decision, guard, decided, Flux.from(call(invocation, null))) : Flux.empty());
        }
        return verdict.flatMap(decided -> decided.through()
                ? counted(decision, guard, decided, Mono.from(call(invocation, null))) : Mono.empty());
    }

    /**
     * Asks the filter without blocking the subscribing thread, and hands its answer to the decision: whether the call
     * goes through, with that answer; fails under {@code on-backend-failure: throw}.
     */
    private static Mono<Verdict> ask(GuardDecision decision, GuardOperation guard, Object[] args, boolean writingHere,
            CheckObserver.@Nullable Check check) {
        Object key = decision.keyToCheck(guard, args, check);
        if (key == null) {
            return Mono.just(Verdict.UNCHECKED);
        }
        CompletableFuture<CheckResult> answer;
        try {
            answer = guard.filter().checkAsync(key, writingHere);
        }
        catch (IllegalArgumentException ex) {
            return Mono.just(decision.unhashable(guard, ex, check));
        }
        catch (RuntimeException ex) { // a backend that fails at once, not through the future
            return Mono.fromCallable(() -> decision.failed(guard, ex, check));
        }
        Mono<CheckResult> answered = Mono.fromFuture(answer);
        if (!answer.isDone()) {
            // A shared filter's answer arrives on the Redis client's I/O thread, and one given once writes under way
            // are keyed on the thread that keyed the last: the method must not run there (a slow subscriber on the
            // I/O thread would hold up every Redis reply of the application). A local one is in already.
            answered = answered.publishOn(Schedulers.parallel());
        }
        Mono<Verdict> decided = answered
                .map(result -> decision.decide(guard, key, result, check))
                .onErrorResume(RuntimeException.class, failure -> Mono.just(decision.failed(guard, failure, check)));
        return (check != null) ? decided.doOnCancel(check::cancelled) : decided;
    }

    /** The method's {@code Mono}, counting once it has answered whether the filter's answer was right. */
    private static Mono<?> counted(GuardDecision decision, GuardOperation guard, Verdict verdict, Mono<?> result) {
        if (!GuardDecision.answerCounts(guard, verdict)) {
            return result;
        }
        // Completes empty: the value is null, which is "not found".
        return result.doOnSuccess(value -> decision.countAnswer(guard, verdict, value));
    }

    /** The method's {@code Flux}, counting as above: it found something if it emits anything. */
    private static Flux<?> counted(GuardDecision decision, GuardOperation guard, Verdict verdict, Flux<?> result) {
        if (!GuardDecision.answerCounts(guard, verdict)) {
            return result;
        }
        AtomicBoolean found = new AtomicBoolean(); // this subscription's: the method is called anew for each
        return result
                .doOnNext(element -> {
                    if (found.compareAndSet(false, true)) {
                        decision.countAnswer(guard, verdict, false, true);
                    }
                })
                .doOnComplete(() -> {
                    if (!found.get()) {
                        decision.countAnswer(guard, verdict, true, false);
                    }
                });
    }

    /**
     * Calls the method, once per subscription: each call proceeds through its own copy of the invocation, whose
     * remaining advice (a transaction, a cache) would otherwise be skipped from the second time on. The copy is
     * also exposed as the current invocation, as Spring does at the head of a proxy's chain on the calling thread:
     * AspectJ-style advice further in looks it up, and this may run on another thread, later.
     *
     * @param args the arguments to call it with, or {@code null} for the call's own
     */
    static org.reactivestreams.Publisher<?> call(MethodInvocation invocation, @Nullable Object @Nullable [] args) {
        MethodInvocation once;
        if (invocation instanceof ProxyMethodInvocation proxied) {
            once = (args != null) ? proxied.invocableClone(args) : proxied.invocableClone();
        }
        else {
            if (args != null) {
                System.arraycopy(args, 0, invocation.getArguments(), 0, args.length);
            }
            once = invocation;
        }
        try {
            Object result = ExposeInvocationInterceptor.INSTANCE.invoke(once);
            return (result != null) ? (org.reactivestreams.Publisher<?>) result : Mono.empty();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }
}
