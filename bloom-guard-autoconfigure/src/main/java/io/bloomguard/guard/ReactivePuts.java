package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.UnkeyedWrites;
import org.jspecify.annotations.Nullable;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Puts the keys of a {@code @BloomPut} method that returns a Reactor {@code Mono} or {@code Flux}, from inside the
 * method's reactive transaction: a {@code Mono}'s value, or each element of a {@code Flux}, is keyed as it is
 * emitted, before the transaction (which subscribes to what this returns) commits. A key read from the arguments
 * that was not known before the call is put when the {@code Mono} emits or completes, when the {@code Flux}
 * completes.
 *
 * <p>With no transaction around the subscription each statement commits at once, so the write counts as
 * {@linkplain UnkeyedWrites unkeyed} while it runs. Either way, the subscription's context says that it writes to
 * the filter: a guarded lookup inside the same pipeline (which may read back the row) is not rejected.
 *
 * <p>A write that fails or is cancelled before it delivers is watched to the end of its transaction
 * ({@link InterruptedWrites}). Loaded only where Reactor is present.
 */
final class ReactivePuts {

    private ReactivePuts() {
    }

    static boolean isMono(Class<?> type) {
        return type == Mono.class; // a subclass could not hold the Mono returned instead
    }

    static boolean isFlux(Class<?> type) {
        return type == Flux.class;
    }

    /**
     * A Mono or Flux still to deliver: not a {@code Mono} whose value is already there, such as
     * {@code Mono.just(repository.save(user))}, which wrote when it was called.
     */
    static boolean isPendingPublisher(@Nullable Object result) {
        return result instanceof Mono<?> && !(result instanceof Fuseable.ScalarCallable<?>) || result instanceof Flux<?>;
    }

    /** Whether a pipeline with this context runs inside a {@code @BloomPut} write to {@code filter}. */
    static boolean writingIn(ContextView context, NamedBloomFilter filter) {
        return context.hasKey(new WritingTo(filter));
    }

    /**
     * The value of a {@code Mono.just(...)} returned by the method: it wrote when it was called, so its key is put
     * now. A {@code Mono.error} is a write that failed.
     */
    static void putDelivered(PutOperation put, Object[] args, Object result) {
        Object value;
        try {
            value = ((Fuseable.ScalarCallable<?>) result).call();
        }
        catch (Exception failed) {
            InterruptedWrites.putKeyFromArguments(put, args);
            return;
        }
        put.putFromResult(args, value);
    }

    /** The method's publisher, putting its keys as it delivers. */
    static Object putOnDelivery(PutOperation put, Object[] args, Object result) {
        if (result instanceof Mono<?>) {
            Mono<Object> mono = asMono(result);
            return watched(put, args, "Mono").flatMap(watch -> watch.track(mono
                    .doOnEach(signal -> {
                        if (signal.isOnNext() || signal.isOnComplete()) {
                            watch.settled(); // its value is keyed next, or it wrote nothing to key
                        }
                    })
                    .doOnError(failure -> watch.failed())
                    .doOnCancel(watch::cancelled)
                    .doOnSuccess(value -> put.putFromResult(args, value))));
        }
        Flux<Object> flux = asFlux(result);
        return watched(put, args, "Flux").flatMapMany(watch -> {
            Flux<Object> watchedFlux = flux
                    .doOnComplete(watch::settled) // each element keyed, or the arguments' key put next
                    .doOnError(failure -> watch.failed())
                    .doOnCancel(watch::cancelled);
            return watch.track(put.key().usesResult()
                    ? watchedFlux.doOnNext(value -> {
                        if (put.putFromResult(args, value) == null && put.yieldsNull(args, value)) {
                            watch.deliveredWithoutKey(); // nothing re-reads a delivered element at the commit
                        }
                    })
                    : watchedFlux.doOnComplete(() -> put.putFromResult(args, null)));
        });
    }

    /**
     * This subscription's watch, once it is known whether a transaction surrounds it (which then reports its end
     * to the watch).
     */
    private static Mono<Subscription> watched(PutOperation put, Object[] args, String publisher) {
        InterruptedWrites.Subscription interrupted = new InterruptedWrites.Subscription(put, args, publisher);
        return ReactiveTransactions.whenEnds(interrupted::transactionEnded).map(inTransaction -> {
            interrupted.inTransaction(inTransaction);
            return new Subscription(put.filter(), interrupted, inTransaction);
        });
    }

    @SuppressWarnings("unchecked") // any Mono is a Mono of Objects to read from
    private static Mono<Object> asMono(Object result) {
        return (Mono<Object>) result;
    }

    @SuppressWarnings("unchecked")
    private static Flux<Object> asFlux(Object result) {
        return (Flux<Object>) result;
    }

    /** The context entry that marks a pipeline writing to a filter. */
    private record WritingTo(NamedBloomFilter filter) {
    }

    /** One subscription to a reactive write. */
    private record Subscription(NamedBloomFilter filter, InterruptedWrites.Subscription interrupted,
            boolean inTransaction) {

        void settled() {
            interrupted.settled();
        }

        void failed() {
            interrupted.failed();
        }

        void cancelled() {
            interrupted.cancelled();
        }

        void deliveredWithoutKey() {
            interrupted.deliveredWithoutKey();
        }

        /** Marks the pipeline as writing; outside a transaction its rows may be visible before their keys. */
        Mono<Object> track(Mono<Object> mono) {
            UnkeyedWrites.@Nullable Write write = open();
            return mono.doFinally(signal -> end(write)).contextWrite(this::marked);
        }

        Flux<Object> track(Flux<Object> flux) {
            UnkeyedWrites.@Nullable Write write = open();
            return flux.doFinally(signal -> end(write)).contextWrite(this::marked);
        }

        private UnkeyedWrites.@Nullable Write open() {
            return inTransaction ? null : filter.unkeyedWrites().beginDetached();
        }

        private reactor.util.context.Context marked(reactor.util.context.Context context) {
            return context.put(new WritingTo(filter), Boolean.TRUE);
        }

        private static void end(UnkeyedWrites.@Nullable Write write) {
            if (write != null) {
                write.end();
            }
        }
    }
}
