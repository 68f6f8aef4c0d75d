package io.bloomguard.testapp;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Runs a test's concurrent step on a thread of its own. {@code CompletableFuture}'s default executor is the common
 * pool, which on Java 25 keeps one thread on a 2-core machine (Java 17 started a thread per task there): a step that
 * waits for the test to let it go would then keep every later step from starting.
 */
public final class OwnThread {

    private static final Executor NEW_THREAD = task -> {
        Thread thread = new Thread(task, "test-step");
        thread.setDaemon(true);
        thread.start();
    };

    private OwnThread() {
    }

    public static <T> CompletableFuture<T> supply(Supplier<T> step) {
        return CompletableFuture.supplyAsync(step, NEW_THREAD);
    }

    public static CompletableFuture<Void> run(Runnable step) {
        return CompletableFuture.runAsync(step, NEW_THREAD);
    }
}
