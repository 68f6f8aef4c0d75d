package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one daemon thread on which a registry's local filters rebuild themselves (to recover from {@code FAILED}, to
 * grow past their capacity), made when first needed: such rebuilds run one at a time, never beside each other. It
 * belongs to the registry, and so to the application context: closing it stops the thread, and a rebuild asked for
 * afterwards is not run.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BackgroundRebuilds implements AutoCloseable {

    private final Supplier<ScheduledExecutorService> threadMaker;
    private @Nullable ScheduledExecutorService executor;
    private boolean closed;

    /** Rebuilds on a daemon platform thread of its own, for use without Spring. */
    public BackgroundRebuilds() {
        this(() -> Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bloom-guard-background-rebuild");
            thread.setDaemon(true);
            return thread;
        }));
    }

    /**
     * Rebuilds on the thread {@code threadMaker} makes when first needed (one the application chose: a virtual
     * thread, say), which these rebuilds own from then on and shut down when closed.
     */
    public BackgroundRebuilds(Supplier<ScheduledExecutorService> threadMaker) {
        this.threadMaker = threadMaker;
    }

    /**
     * Runs {@code task} on the thread.
     *
     * @return whether it will run: not once closed
     */
    boolean execute(Runnable task) {
        return schedule(task, Duration.ZERO);
    }

    /**
     * Runs {@code task} on the thread after {@code delay}.
     *
     * @return whether it will run: not once closed
     */
    boolean schedule(Runnable task, Duration delay) {
        ScheduledExecutorService running = executor();
        if (running == null) {
            return false;
        }
        try {
            running.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (RejectedExecutionException ex) {
            return false; // closed meanwhile
        }
    }

    private synchronized @Nullable ScheduledExecutorService executor() {
        if (closed) {
            return null;
        }
        if (executor == null) {
            executor = threadMaker.get();
        }
        return executor;
    }

    /** Stops the thread, interrupting a rebuild under way (the live filter is kept; a rebuild swaps only at its end). */
    @Override
    public synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
