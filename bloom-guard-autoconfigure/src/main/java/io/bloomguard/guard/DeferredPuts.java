package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Puts the keys of a {@code @BloomPut} method that returns only a promise of what it wrote: a Reactor
 * {@code Mono} or {@code Flux}, which writes nothing until it is subscribed to, or a {@code CompletionStage},
 * which completes later. Read when such a method returns, {@code #result} would be the promise itself, and an
 * id the insert assigns to an argument would still be {@code null}: the record would be written without its key.
 *
 * <p>So the keys are put as the promise delivers:
 * <ul>
 * <li>a key read from {@code #result}: for a {@code Mono}'s value, and for each element of a {@code Flux}, as it
 * is emitted;</li>
 * <li>a key read from the arguments that was not known before the call: when a {@code Mono} emits its value
 * (or completes empty), when a {@code Flux} completes;</li>
 * <li>a {@code CompletionStage}: when it completes. The guard returns a stage that completes after the put, so
 * whatever waits on the method's result sees the key in.</li>
 * </ul>
 *
 * <p><b>Before the commit.</b> A reactive {@code @Transactional} commits when the method's publisher completes,
 * and Reactor hands a {@code Mono}'s value on only after that commit. So, as for other methods, the put is made
 * inside the transaction, by {@link PutBeforeCommitInterceptor}: the guard's wrapper announces the call in the
 * subscriber's context (a reactive pipeline may run on any thread, so not in a thread-local), and the
 * interceptor's wrapper inside the transaction finds it there when the transaction subscribes to the method's
 * publisher. The guard puts the keys itself only when nothing inside did, or a {@code Mono}'s value gives other keys.
 *
 * <p>Meanwhile this instance's filter holds off rejecting, as during any write whose key is not in yet: from each
 * subscription to its end (or cancellation) for a {@code Mono} or {@code Flux}, and from the call to completion
 * for a {@code CompletionStage}. A publisher nobody subscribes to writes nothing and holds nothing.
 *
 * <p>A write that fails or is cancelled before it delivers is watched from inside its transaction
 * ({@link InterruptedWrites}). Cancelling the {@code CompletableFuture} the guard returns is not passed on to the
 * method's own, whose work would go on (a {@code CompletableFuture} cannot be interrupted) without delivering its key.
 *
 * <p>A plain {@code Future}, or another library's publisher, cannot be watched: {@code #result} on one is refused at
 * startup, and a key from the arguments that is still unknown when the method returns is reported as lost.
 */
final class DeferredPuts {

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Flux",
            DeferredPuts.class.getClassLoader());

    /** What a {@code @BloomPut} method returns, as far as putting its keys goes. */
    enum Kind {
        /** The result itself: keys are put as the method returns. */
        NOW,
        /** A Reactor {@code Mono}. */
        MONO,
        /** A Reactor {@code Flux}. */
        FLUX,
        /** A {@code CompletionStage} or {@code CompletableFuture}. */
        COMPLETION_STAGE,
        /** A promise the guard cannot watch: a plain {@code Future}, another library's publisher. */
        UNWATCHABLE;

        /** Whether the method's result is only a promise of what it wrote. */
        boolean deferred() {
            return this != NOW;
        }
    }

    private DeferredPuts() {
    }

    /** The kind of a method's declared return type. */
    static Kind kindOf(Class<?> returnType) {
        if (REACTOR && Reactor.isMono(returnType)) {
            return Kind.MONO;
        }
        if (REACTOR && Reactor.isFlux(returnType)) {
            return Kind.FLUX;
        }
        // Only these two: the guard returns a CompletableFuture in place of the method's result.
        if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
            return Kind.COMPLETION_STAGE;
        }
        return EmptyValues.isDeferred(returnType) ? Kind.UNWATCHABLE : Kind.NOW;
    }

    /**
     * For the guard: the method's result, watched so that its keys are put as they arrive. {@code latePut} is
     * told, with the reason, before a put into a shared filter that may come after the write has committed.
     */
    static @Nullable Object watch(MethodInvocation invocation, PutOperation put, @Nullable Object result,
            Consumer<String> latePut) {
        if (result == null) {
            return null;
        }
        Object[] args = invocation.getArguments();
        switch (put.kind()) {
            case MONO:
                return Reactor.watchMono(invocation, put, args, result, latePut);
            case FLUX:
                return Reactor.watchFlux(invocation, put, args, result, latePut);
            case COMPLETION_STAGE:
                return watchStage((CompletionStage<?>) result, put, args, latePut);
            default:
                KeyPuts.keyUnknown(put, "its key was still unknown when it returned a " + result.getClass().getSimpleName()
                        + ", whose value bloom-guard cannot watch",
                        "Return a CompletableFuture, a Mono or a Flux, or compute the key before the call");
                return result;
        }
    }

    /**
     * For {@link PutBeforeCommitInterceptor}, inside the method's transaction: a {@code Mono} or {@code Flux} result
     * that puts the keys of the call the guard announced in its subscriber's context, if this is that call.
     * Any other result is returned as it is.
     */
    static @Nullable Object putInside(MethodInvocation invocation, @Nullable Object result) {
        return (REACTOR && Reactor.isPublisher(result)) ? Reactor.putInside(invocation, result) : result;
    }

    /**
     * A stage that completes as {@code stage} does, once its keys are put. A new one rather than
     * {@code stage.whenComplete(...)}, whose failures would reach callers wrapped in a {@code CompletionException}.
     */
    private static CompletableFuture<Object> watchStage(CompletionStage<?> stage, PutOperation put, Object[] args,
            Consumer<String> latePut) {
        NamedBloomFilter filter = put.filter();
        CompletableFuture<Object> watched = new CompletableFuture<>();
        filter.beginWrite();
        stage.whenComplete((value, failure) -> {
            Throwable outcome = failure;
            try {
                if (failure == null) {
                    if (put.sharedFilter()) {
                        latePut.accept("its key is known only once its CompletionStage completes, after any transaction"
                                + " the asynchronous work ran in has committed");
                    }
                    KeyPuts.putFromResult(put, args, value);
                }
                else {
                    InterruptedWrites.putKeyFromArguments(put, args);
                }
            }
            catch (Throwable ex) { // a failed put under on-backend-failure: throw
                outcome = ex;
            }
            finally {
                filter.endWrite(); // before completing: whoever waits on the stage finds the write over
            }
            if (outcome != null) {
                watched.completeExceptionally(outcome);
            }
            else {
                watched.complete(value);
            }
        });
        // Cancelling the stage returned is not passed on to the method's own: a CompletableFuture's work goes on when
        // it is cancelled (it cannot be interrupted), and the cancelled future would no longer deliver its key.
        return watched;
    }

    /** Reactor's types; a nested class so that Reactor stays optional. */
    private static final class Reactor {

        /** Why a key is put late when no advice inside the call put it. */
        private static final String NOT_INSIDE = "bloom-guard's interceptor is not inside this call (another proxy"
                + " between bloom-guard's and the method)";

        /**
         * The same for a Mono, which has a second cause: a {@code Mono.just} of a value computed when the method was
         * called, which the advice inside passes on as it is and which a transaction interceptor then wraps.
         */
        private static final String NOT_INSIDE_MONO = "no advice inside the call put its key: either the method returned"
                + " a Mono.just(...) of a value it computed when called, so what it wrote is not part of the Mono's"
                + " transaction (return the reactive write's own Mono, which runs inside it), or bloom-guard's"
                + " interceptor is not inside this call (another proxy between bloom-guard's and the method)";

        /** The context entry through which the guard announces a call to the advice inside it. */
        private static final Class<?> ANNOUNCED = PendingPuts.PendingPut.class;

        static boolean isMono(Class<?> type) {
            return type == reactor.core.publisher.Mono.class; // a subclass could not hold the Mono returned instead
        }

        static boolean isFlux(Class<?> type) {
            return type == reactor.core.publisher.Flux.class;
        }

        /**
         * A Mono or Flux to watch: not a {@code Mono} whose value is already there, such as
         * {@code Mono.just(repository.save(user))}, which the advice inside passes on as it is, for the guard to
         * put its key at once.
         */
        static boolean isPublisher(@Nullable Object result) {
            return result instanceof reactor.core.publisher.Mono<?> && !(result instanceof reactor.core.Fuseable.ScalarCallable<?>)
                    || result instanceof reactor.core.publisher.Flux<?>;
        }

        static Object watchMono(MethodInvocation invocation, PutOperation put, Object[] args, Object result,
                Consumer<String> latePut) {
            NamedBloomFilter filter = put.filter();
            if (result instanceof reactor.core.Fuseable.ScalarCallable<?> delivered) {
                // The method wrote when called, and the row may be committed: its key goes in now, while the call is
                // held, not whenever (if ever) the Mono is subscribed to.
                Object value;
                try {
                    value = delivered.call();
                }
                catch (Exception failed) { // a Mono.error: the write failed
                    InterruptedWrites.putKeyFromArguments(put, args);
                    return result;
                }
                if (put.sharedFilter()) {
                    latePut.accept("its Mono holds a value computed when the method was called, after whatever it wrote"
                            + " may have been committed");
                }
                KeyPuts.putFromResult(put, args, value);
                return result;
            }
            reactor.core.publisher.Mono<Object> mono = asMono(result);
            return reactor.core.publisher.Mono.defer(() -> {
                PendingPuts.PendingPut announced = PendingPuts.detached(invocation, put);
                return mono
                        .doOnSuccess(value -> {
                            if (announced.keyed(KeyPuts.keysOf(put, args, value))) {
                                return;
                            }
                            if (put.sharedFilter()) {
                                latePut.accept(announced.everClaimed()
                                        ? "its key was not known inside its transaction (null there, or changed since)"
                                        : NOT_INSIDE_MONO);
                            }
                            KeyPuts.putFromResult(put, args, value);
                        })
                        .doOnError(failure -> interruptedOutside(announced, args))
                        .doOnCancel(() -> interruptedOutside(announced, args))
                        .contextWrite(context -> context.put(ANNOUNCED, announced));
            }).doFinally(signal -> filter.endWrite()).doFirst(filter::beginWrite);
        }

        static Object watchFlux(MethodInvocation invocation, PutOperation put, Object[] args, Object result,
                Consumer<String> latePut) {
            NamedBloomFilter filter = put.filter();
            reactor.core.publisher.Flux<Object> flux = asFlux(result);
            return reactor.core.publisher.Flux.defer(() -> {
                PendingPuts.PendingPut announced = PendingPuts.detached(invocation, put);
                // Each element's keys (or, keyed on the arguments, the keys at completion), unless put inside.
                Consumer<@Nullable Object> putHere = value -> {
                    if (announced.everClaimed()) {
                        return;
                    }
                    if (put.sharedFilter()) {
                        latePut.accept(NOT_INSIDE);
                    }
                    KeyPuts.putFromResult(put, args, value);
                };
                reactor.core.publisher.Flux<Object> putting = put.key().usesResult()
                        ? flux.doOnNext(putHere)
                        : flux.doOnComplete(() -> putHere.accept(null));
                return putting
                        .doOnError(failure -> interruptedOutside(announced, args))
                        .doOnCancel(() -> interruptedOutside(announced, args))
                        .contextWrite(context -> context.put(ANNOUNCED, announced));
            }).doFinally(signal -> filter.endWrite()).doFirst(filter::beginWrite);
        }

        /**
         * A write that failed or was cancelled, seen from the guard: the advice inside the call deals with it
         * ({@link InterruptedWrites}); with none there, the most the guard can do is put a key the arguments hold.
         */
        private static void interruptedOutside(PendingPuts.PendingPut announced, Object[] args) {
            if (!announced.everClaimed()) {
                InterruptedWrites.putKeyFromArguments(announced.operation(), args);
            }
        }

        static Object putInside(MethodInvocation invocation, Object result) {
            Object[] args = invocation.getArguments();
            if (result instanceof reactor.core.publisher.Mono<?>) {
                reactor.core.publisher.Mono<Object> mono = asMono(result);
                return reactor.core.publisher.Mono.deferContextual(context -> {
                    PendingPuts.PendingPut announced = announcedFor(invocation, context);
                    if (announced == null) {
                        return mono;
                    }
                    PutOperation put = announced.operation();
                    // Watched between the method's publisher and the put: the method's own failures, not a put's.
                    return watchedInside(put, args, "Mono").flatMap(watch -> mono
                            .doOnEach(signal -> {
                                if (signal.isOnNext() || signal.isOnComplete()) {
                                    watch.settled(); // its value is keyed next, or it wrote nothing to key
                                }
                            })
                            .doOnError(failure -> watch.failed())
                            .doOnCancel(watch::cancelled)
                            .doOnSuccess(value -> announced.recordKeyed(KeyPuts.putFromResult(put, args, value))));
                });
            }
            reactor.core.publisher.Flux<Object> flux = asFlux(result);
            return reactor.core.publisher.Flux.deferContextual(context -> {
                PendingPuts.PendingPut announced = announcedFor(invocation, context);
                if (announced == null) {
                    return flux;
                }
                PutOperation put = announced.operation();
                return watchedInside(put, args, "Flux").flatMapMany(watch -> {
                    reactor.core.publisher.Flux<Object> watched = flux
                            .doOnComplete(watch::settled) // each element keyed, or the arguments' key put next
                            .doOnError(failure -> watch.failed())
                            .doOnCancel(watch::cancelled);
                    return put.key().usesResult()
                            ? watched.doOnNext(value -> KeyPuts.putFromResult(put, args, value))
                            : watched.doOnComplete(() -> KeyPuts.putFromResult(put, args, null));
                });
            });
        }

        /**
         * This subscription's watch for a write that ends before it gives its key ({@link InterruptedWrites}),
         * once it is known whether a transaction surrounds it (which then reports its end to the watch).
         */
        private static reactor.core.publisher.Mono<InterruptedWrites.Subscription> watchedInside(PutOperation put,
                Object[] args, String publisher) {
            InterruptedWrites.Subscription watch = new InterruptedWrites.Subscription(put, args, publisher);
            return ReactiveTransactions.whenEnds(watch::transactionEnded).map(inTransaction -> {
                watch.inTransaction(inTransaction);
                return watch;
            });
        }

        @SuppressWarnings("unchecked") // any Mono is a Mono of Objects to read from
        private static reactor.core.publisher.Mono<Object> asMono(Object result) {
            return (reactor.core.publisher.Mono<Object>) result;
        }

        @SuppressWarnings("unchecked")
        private static reactor.core.publisher.Flux<Object> asFlux(Object result) {
            return (reactor.core.publisher.Flux<Object>) result;
        }

        private static PendingPuts.@Nullable PendingPut announcedFor(MethodInvocation invocation,
                reactor.util.context.ContextView context) {
            Object announced = context.getOrDefault(ANNOUNCED, null);
            return (announced instanceof PendingPuts.PendingPut pending && pending.claimedBy(invocation)) ? pending : null;
        }
    }
}
