package io.bloomguard.redis;

import io.bloomguard.core.KeyFeed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A key source for tests: reads its keys afresh from a supplier on every call (a database would), counts the
 * calls, and can hold calls at a gate, so that a test decides when a load finishes.
 *
 * <p>Usage: {@code RecordingKeyFeed feed = RecordingKeyFeed.of(keys).holdingCallsFrom(2); ... feed.open();}
 */
final class RecordingKeyFeed implements KeyFeed {

    private static final int BATCH = 1000;

    private final Supplier<? extends Collection<?>> source;
    private final AtomicInteger calls = new AtomicInteger();
    private final Semaphore held = new Semaphore(0);
    private final CountDownLatch gate = new CountDownLatch(1);
    private volatile int firstHeldCall = Integer.MAX_VALUE;
    private volatile Duration pausePerBatch = Duration.ZERO;
    private volatile List<Object> lastSnapshot = List.of();

    private RecordingKeyFeed(Supplier<? extends Collection<?>> source) {
        this.source = source;
    }

    static RecordingKeyFeed of(Collection<?> keys) {
        List<?> copy = List.copyOf(keys);
        return new RecordingKeyFeed(() -> copy);
    }

    /** A feed that reads {@code source} when called: what it returns then is the snapshot it feeds. */
    static RecordingKeyFeed reading(Supplier<? extends Collection<?>> source) {
        return new RecordingKeyFeed(source);
    }

    /** Holds the {@code call}-th call (1-based) and every later one at a gate until {@link #open()}. */
    RecordingKeyFeed holdingCallsFrom(int call) {
        this.firstHeldCall = call;
        return this;
    }

    /** Sleeps after each batch, so that a load takes a while and concurrent writers overlap it. */
    RecordingKeyFeed pausingPerBatch(Duration pause) {
        this.pausePerBatch = pause;
        return this;
    }

    void open() {
        gate.countDown();
    }

    /** Waits until a held call has read its snapshot and waits at the gate; each held call is awaited once. */
    void awaitHeldCall(Duration timeout) {
        try {
            if (!held.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no read of the key source reached the gate within " + timeout.toMillis()
                        + " ms");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    int calls() {
        return calls.get();
    }

    /** The keys the latest call read. */
    List<Object> lastSnapshot() {
        return lastSnapshot;
    }

    @Override
    public long feed(Consumer<List<Object>> batches) {
        int call = calls.incrementAndGet();
        List<Object> snapshot = new ArrayList<>(source.get());
        lastSnapshot = List.copyOf(snapshot);
        if (call >= firstHeldCall) {
            held.release();
            await(gate);
        }
        for (int from = 0; from < snapshot.size(); from += BATCH) {
            batches.accept(new ArrayList<>(snapshot.subList(from, Math.min(snapshot.size(), from + BATCH))));
            if (!pausePerBatch.isZero()) {
                sleep(pausePerBatch);
            }
        }
        return snapshot.size();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the key source's gate");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at the key source's gate", ex);
        }
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading keys", ex);
        }
    }
}
