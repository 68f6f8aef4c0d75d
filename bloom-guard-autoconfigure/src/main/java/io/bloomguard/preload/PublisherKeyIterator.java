package io.bloomguard.preload;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The keys of one subscription to a publisher, taken one at a time by the thread that loads a filter. Demand is
 * bounded: it requests {@code demand} keys, and half as many again each time half of them were taken, so that at most
 * {@code demand} keys are ever requested and not yet taken (in flight or queued here), however fast the publisher
 * and however slow the filter. The publisher's signals never wait: they only queue.
 *
 * <p>Usage: {@code publisher.subscribe(keys); while (keys.hasNext()) { ... keys.next() ... } keys.cancel();}
 *
 * <p>Why not Reactor's {@code Flux.toIterable}: the source is any Reactive Streams {@code Publisher}, and an
 * application may have one without Reactor (a Kotlin {@code Flow} through kotlinx-coroutines-reactive, RxJava);
 * reactor-core is an optional dependency of the starter.
 */
final class PublisherKeyIterator implements Iterator<Object>, Subscriber<Object> {

    /** The publisher completed. */
    private static final Object COMPLETE = new Object();

    /** The publisher failed (or broke the protocol). */
    private record Failure(Throwable error) {
    }

    private final int demand;
    /** Keys taken after which as many are requested again. */
    private final int replenish;
    /** Keys, then one terminal signal; never more than {@code demand} keys, since no more are requested. */
    private final LinkedBlockingQueue<Object> signals = new LinkedBlockingQueue<>();
    private final AtomicReference<@Nullable Subscription> subscription = new AtomicReference<>();
    /** Keys requested and not yet delivered: a key beyond them breaks the protocol (rule 1.1). */
    private final AtomicLong outstanding = new AtomicLong();
    private volatile boolean cancelled;
    private volatile boolean terminated;

    // The loading thread's alone:
    private @Nullable Object next;
    private boolean done;
    private int takenSinceRequest;

    PublisherKeyIterator(int demand) {
        if (demand < 1) {
            throw new IllegalArgumentException("demand must be at least 1, was " + demand);
        }
        this.demand = demand;
        this.replenish = Math.max(1, demand / 2);
    }

    @Override
    public void onSubscribe(Subscription subscription) {
        Objects.requireNonNull(subscription, "subscription"); // rule 2.13
        if (!this.subscription.compareAndSet(null, subscription)) {
            subscription.cancel(); // rule 2.5: one subscription at a time
            return;
        }
        if (cancelled) {
            subscription.cancel();
            return;
        }
        request(subscription, demand);
    }

    @Override
    public void onNext(Object key) {
        Objects.requireNonNull(key, "key"); // rule 2.13
        if (terminated || cancelled) {
            return;
        }
        if (outstanding.getAndDecrement() <= 0) {
            cancel();
            terminate(new Failure(new IllegalStateException("The key source's publisher sent more keys than were"
                    + " requested, which Reactive Streams forbids (rule 1.1)")));
            return;
        }
        signals.add(key);
    }

    @Override
    public void onError(Throwable error) {
        terminate(new Failure(Objects.requireNonNull(error, "error")));
    }

    @Override
    public void onComplete() {
        terminate(COMPLETE);
    }

    private void terminate(Object signal) {
        if (!terminated) {
            terminated = true;
            signals.add(signal);
        }
    }

    /**
     * Whether there is another key; waits for the publisher until there is one or it has ended.
     *
     * @throws RuntimeException what the publisher failed with (a checked exception too, undeclared)
     */
    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        if (done) {
            return false;
        }
        Object signal;
        try {
            signal = signals.take();
        }
        catch (InterruptedException ex) {
            cancel();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the key source's publisher", ex);
        }
        if (signal == COMPLETE) {
            done = true;
            return false;
        }
        if (signal instanceof Failure failure) {
            done = true;
            throw PublisherKeyIterator.<RuntimeException>sneaky(failure.error());
        }
        next = signal;
        return true;
    }

    @Override
    public Object next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Object key = Objects.requireNonNull(next);
        next = null;
        if (++takenSinceRequest == replenish) {
            takenSinceRequest = 0;
            Subscription current = subscription.get();
            if (current != null && !terminated) {
                request(current, replenish);
            }
        }
        return key;
    }

    /** Ends the subscription (the load finished, failed or was abandoned); idempotent. */
    void cancel() {
        cancelled = true;
        Subscription current = subscription.get();
        if (current != null) {
            current.cancel();
        }
        signals.clear(); // the keys not taken: nothing reads them any more
    }

    private void request(Subscription to, long keys) {
        outstanding.addAndGet(keys); // before asking: a publisher may deliver within request()
        to.request(keys);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable failure) throws E {
        throw (E) failure;
    }
}
