package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link KeyedWrite} whose method returns a Reactor {@code Mono} or {@code Flux}, keyed from inside its reactive
 * transaction: a {@code Mono}'s value, or each element of a {@code Flux}, is keyed as it is emitted, before the
 * transaction (which subscribes to what this returns) commits. A key read from the arguments that was not known before
 * the call is put when the {@code Mono} emits or completes, when the {@code Flux} completes.
 *
 * <p>Each subscription is watched on its own ({@link KeyedWriteSubscription}): it marks its pipeline as writing to the
 * filter, so that a guarded lookup inside it (which may read back the row) is not rejected, and is unkeyed while it
 * runs with no transaction. Loaded only where Reactor is present.
 */
final class ReactiveKeyedWrite {

    private final KeyedWrite write;
    private final PutOperation put;
    private final Object[] args;

    ReactiveKeyedWrite(KeyedWrite write) {
        this.write = write;
        this.put = write.put();
        this.args = write.args();
    }

    /**
     * A Mono or Flux still to deliver: not a {@code Mono} whose value is already there, such as
     * {@code Mono.just(repository.save(user))}, which wrote when it was called.
     */
    static boolean isPending(@Nullable Object result) {
        return result instanceof Mono<?> && !(result instanceof Fuseable.ScalarCallable<?>) || result instanceof Flux<?>;
    }

    /**
     * The value of a {@code Mono.just(...)} returned by the method: it wrote when it was called, so its key is put
     * now. A {@code Mono.error} is a write that failed.
     */
    void keyedNow(Object result) {
        Object value;
        try {
            value = ((Fuseable.ScalarCallable<?>) result).call();
        }
        catch (Exception failed) {
            write.putKeyFromArguments();
            return;
        }
        put.putFromResult(args, value);
    }

    /** The method's publisher, putting its keys as it delivers. */
    Object keyedOnDelivery(Object result) {
        if (result instanceof Mono<?>) {
            Mono<Object> mono = asMono(result);
            return subscribed("Mono").flatMap(watch -> watch.track(mono
                    .doOnEach(signal -> {
                        if (signal.isOnNext() || signal.isOnComplete()) {
                            watch.settled(); // its value is keyed next, or it wrote nothing to key
                        }
                    })
                    .doOnError(failure -> watch.failed())
                    .doOnCancel(watch::cancelled)
                    .doOnSuccess(value -> {
                        PutOperation.Evaluated keys = put.putFromResult(args, value);
                        watch.put(keys.keys());
                        // An empty Mono keyed on its result wrote nothing; any other write whose key is still null
                        // wrote a row without it.
                        if (keys.nullKey() && (value != null || !put.key().usesResult())) {
                            watch.deliveredWithoutKey();
                        }
                    })));
        }
        Flux<Object> flux = asFlux(result);
        return subscribed("Flux").flatMapMany(watch -> {
            Flux<Object> watchedFlux = flux
                    .doOnComplete(watch::settled) // each element keyed, or the arguments' key put next
                    .doOnError(failure -> watch.failed())
                    .doOnCancel(watch::cancelled);
            return watch.track(put.key().usesResult()
                    ? watchedFlux.doOnNext(value -> {
                        PutOperation.Evaluated keys = put.putFromResult(args, value);
                        watch.put(keys.keys());
                        if (keys.nullKey()) {
                            watch.deliveredWithoutKey(); // nothing re-reads a delivered element at the commit
                        }
                    })
                    : watchedFlux.doOnComplete(() -> {
                        PutOperation.Evaluated keys = put.putFromResult(args, null);
                        watch.put(keys.keys());
                        if (keys.nullKey()) {
                            watch.deliveredWithoutKey(); // the arguments never received their key
                        }
                    }));
        });
    }

    /**
     * This subscription's watch, once it is known whether a transaction surrounds it (which then reports its end to
     * the watch).
     */
    private Mono<KeyedWriteSubscription> subscribed(String publisher) {
        KeyedWriteSubscription subscription = new KeyedWriteSubscription(write, publisher);
        return ReactiveTransactions.whenEnds(subscription::transactionEnded).map(inTransaction -> {
            subscription.inTransaction(inTransaction);
            return subscription;
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
}
