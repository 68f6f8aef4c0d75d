package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The writes to one filter whose rows may be visible before their keys are in: a write with no transaction
 * (each statement commits at once), one whose transaction was suspended for another that commits first, one
 * whose key the database fills in only at the commit. Only such writes open a window in which a reader could
 * find a row the filter does not know yet; a write whose key goes in before its transaction commits never
 * registers here.
 *
 * <p>The guard acts on it only when the filter answers "absent": if such a write is under way, the lookup waits
 * for it to put its key (at most {@link #MAX_WAIT}) and asks the filter again, so that other keys go on being
 * rejected during a stream of writes. A lookup made by the writing thread itself, inside the write, is never
 * rejected: its own row is there, and its key is not yet.
 *
 * <p>Usage: {@code Write write = writes.begin(); try { write.visible(); ... put the key ... } finally { write.end(); }}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @hidden
 */
public final class UnkeyedWrites {

    /** Longest a lookup waits for writes under way to put their keys; past it the lookup goes through. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(1);

    private final Set<Write> visible = ConcurrentHashMap.newKeySet();
    private final AtomicInteger visibleCount = new AtomicInteger();
    /** Writes begun on some thread and not ended: while none is, no thread-local needs looking up. */
    private final AtomicInteger threadWrites = new AtomicInteger();
    private final ThreadLocal<int @Nullable []> openOnThisThread = new ThreadLocal<>();

    /**
     * Begins a write on the calling thread whose key is not in yet. Until {@link Write#visible()} it only keeps
     * the thread's own lookups from being rejected.
     */
    public Write begin() {
        int[] open = openOnThisThread.get();
        if (open == null) {
            open = new int[1];
            openOnThisThread.set(open);
        }
        open[0]++;
        threadWrites.incrementAndGet();
        return new Write(Thread.currentThread());
    }

    /**
     * Begins a write that belongs to no thread (a reactive pipeline, an asynchronous task) and whose row may be
     * visible from now on.
     */
    public Write beginDetached() {
        Write write = new Write(null);
        write.visible();
        return write;
    }

    /**
     * How many writes with possibly visible rows are under way: read it <em>before</em> asking the filter, so that a
     * write that puts its key after the filter was asked is still counted.
     */
    public int visibleCount() {
        return visibleCount.get();
    }

    /** Whether the calling thread is inside a write to this filter whose key is not in yet. */
    public boolean writingOnThisThread() {
        if (threadWrites.get() == 0) {
            return false; // the common case, without a thread-local look-up on the guard's path
        }
        int[] open = openOnThisThread.get();
        return open != null && open[0] > 0;
    }

    /**
     * Waits until every write under way now with a possibly visible row has put its key or ended, at most
     * {@link #MAX_WAIT}.
     *
     * @return whether they all did: the filter can be asked again
     */
    public boolean awaitVisibleWrites() {
        try {
            settled().get(MAX_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        }
        catch (TimeoutException | ExecutionException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Completes once every write under way now with a possibly visible row has put its key or ended. */
    public CompletableFuture<Void> settled() {
        return CompletableFuture.allOf(visible.stream().map(write -> write.done).toArray(CompletableFuture[]::new));
    }

    /** One write whose key is not in the filter yet. */
    public final class Write {

        private final @Nullable Thread thread;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private boolean visibleNow;
        private boolean ended;

        private Write(@Nullable Thread thread) {
            this.thread = thread;
        }

        /** Its row may be visible to other readers from now on, before its key is in. */
        public synchronized void visible() {
            if (!visibleNow && !ended) {
                visibleNow = true;
                visibleCount.incrementAndGet();
                visible.add(this);
            }
        }

        /** Its key is in the filter, or it wrote nothing: lookups waiting for it ask the filter again. */
        public void end() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                if (visibleNow) {
                    visible.remove(this);
                    visibleCount.decrementAndGet();
                }
            }
            if (thread == Thread.currentThread()) {
                int[] open = openOnThisThread.get();
                if (open != null && --open[0] == 0) {
                    openOnThisThread.remove();
                }
            }
            if (thread != null) {
                threadWrites.decrementAndGet();
            }
            done.complete(null);
        }
    }
}
