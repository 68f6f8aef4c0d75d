package io.bloomguard.guard;

import io.bloomguard.guard.PrunedLookup.Batch;
import io.bloomguard.guard.PrunedLookup.Pruning;
import io.bloomguard.registry.FilterSpec;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link PrunedLookup} for a method that returns a Reactor {@code Mono} or {@code Flux}: checked when subscribed to,
 * as {@link ReactiveGuard} checks a single key, and the method called then with only the elements that might exist.
 *
 * <p>A shared filter answers the batch over the network, and a write under way may have to be waited for: neither
 * happens on the subscribing thread (in a reactive application, an event loop serving many requests), but on
 * Reactor's bounded elastic scheduler. A local filter with no write under way answers at once, on the subscriber's
 * thread.
 */
final class ReactivePrunedLookup {

    private ReactivePrunedLookup() {
    }

    /** A subscription's decision, with the arguments the method is called with. */
    private record Decided(Pruning pruning, @Nullable Object[] args) {
    }

    static Object guard(GuardDecision decision, GuardOperation guard, MethodInvocation invocation) {
        Mono<Decided> decided = Mono.deferContextual(context -> decide(decision, guard, invocation.getArguments(),
                KeyedWriteSubscription.writingIn(context, guard.filter()),
                decision.startCheck(guard, context.getOrDefault(ReactiveGuard.OBSERVATION_KEY, null))));
        if (guard.resultKind() == ResultKind.FLUX) {
            return decided.flatMapMany(call -> call.pruning().through()
                    ? counted(guard, call.pruning(), Flux.from(ReactiveGuard.call(invocation, call.args())))
                    : Flux.empty());
        }
        return decided.flatMap(call -> call.pruning().through()
                ? counted(guard, call.pruning(), Mono.from(ReactiveGuard.call(invocation, call.args())))
                : Mono.empty());
    }

    private static Mono<Decided> decide(GuardDecision decision, GuardOperation guard, Object[] args,
            boolean writingHere, CheckObserver.@Nullable Check check) {
        Batch batch = PrunedLookup.batchToCheck(decision, guard, args, check);
        if (batch == null) {
            return Mono.just(new Decided(Pruning.AS_IS, null));
        }
        Mono<Decided> decided = Mono.fromCallable(() -> {
            Pruning pruning = PrunedLookup.ask(decision, guard, batch, writingHere, check);
            return new Decided(pruning, pruning.arguments(guard.batch(), args, batch));
        });
        boolean answersAtOnce = guard.filter().spec().backend() instanceof FilterSpec.Local
                && guard.filter().unkeyedWrites().visibleCount() == 0;
        decided = answersAtOnce ? decided : decided.subscribeOn(Schedulers.boundedElastic());
        return (check != null) ? decided.doOnCancel(check::cancelled) : decided;
    }

    private static Mono<?> counted(GuardOperation guard, Pruning pruning, Mono<?> result) {
        return result.doOnSuccess(value -> PrunedLookup.countAnswer(guard, pruning, EmptyValues.isEmpty(value)));
    }

    private static Flux<?> counted(GuardOperation guard, Pruning pruning, Flux<?> result) {
        AtomicBoolean found = new AtomicBoolean(); // this subscription's: the method is called anew for each
        return result.doOnNext(element -> found.set(true))
                .doOnComplete(() -> PrunedLookup.countAnswer(guard, pruning, !found.get()));
    }
}
