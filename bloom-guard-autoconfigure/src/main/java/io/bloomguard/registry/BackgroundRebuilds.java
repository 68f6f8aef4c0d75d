package io.bloomguard.registry;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one daemon thread on which local filters rebuild themselves (to recover from {@code FAILED}, to grow past their
 * capacity), made when first needed: such rebuilds run one at a time, never beside each other.
 */
final class BackgroundRebuilds {

    static final ScheduledExecutorService EXECUTOR = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bloom-guard-background-rebuild");
        thread.setDaemon(true);
        return thread;
    });

    private BackgroundRebuilds() {
    }
}
