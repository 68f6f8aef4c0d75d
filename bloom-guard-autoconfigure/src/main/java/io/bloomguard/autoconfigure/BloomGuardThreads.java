package io.bloomguard.autoconfigure;

import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The threads bloom-guard runs beside the application's own, made with Spring Boot's task builders: virtual threads
 * when {@code spring.threads.virtual.enabled} is set (on Java 21+), otherwise daemon platform threads; named
 * {@code bloom-guard-...} either way. The application's {@code spring.task.*} settings and customizers are for its
 * own tasks and are not applied here: these pools are sized for bloom-guard's work, and each is shut down by what
 * owns it when the application context closes.
 *
 * <p>Usage: {@code new BloomGuardThreads(environment).scheduler("bloom-guard-rebuild")}
 */
final class BloomGuardThreads {

    private final boolean virtual;

    BloomGuardThreads(Environment environment) {
        this.virtual = Threading.VIRTUAL.isActive(environment);
    }

    /** Whether these are virtual threads. */
    boolean virtual() {
        return virtual;
    }

    /** One thread that runs scheduled tasks one at a time; not yet initialized. */
    ThreadPoolTaskSchedulerBuilder scheduler(String name) {
        return new ThreadPoolTaskSchedulerBuilder().poolSize(1).threadNamePrefix(name + "-")
                .customizers(scheduler -> {
                    configure(scheduler);
                    scheduler.setRemoveOnCancelPolicy(true); // cancelled periodic work does not pile up
                });
    }

    /** {@link #scheduler(String)}, started, as the executor a Spring-free owner shuts down itself. */
    ScheduledExecutorService scheduledExecutor(String name) {
        ThreadPoolTaskScheduler scheduler = scheduler(name).build();
        scheduler.initialize();
        return scheduler.getScheduledExecutor();
    }

    /**
     * At most {@code threads} threads; tasks beyond them wait in a queue (so a caller that submits one never blocks),
     * started, as the executor a Spring-free owner shuts down itself.
     */
    ExecutorService fixedPool(String name, int threads) {
        return pool(new ThreadPoolTaskExecutorBuilder().corePoolSize(threads).maxPoolSize(threads), name);
    }

    /** A thread for every task running at once, kept a minute once idle, as the executor its owner shuts down. */
    ExecutorService growingPool(String name) {
        return pool(new ThreadPoolTaskExecutorBuilder().corePoolSize(0).maxPoolSize(Integer.MAX_VALUE).queueCapacity(0)
                .keepAlive(Duration.ofMinutes(1)), name);
    }

    /** A new thread for each task, for work that runs once (the startup of several shared filters together). */
    SimpleAsyncTaskExecutor perTask(String name) {
        return new SimpleAsyncTaskExecutorBuilder().virtualThreads(virtual).threadNamePrefix(name + "-")
                .customizers(executor -> executor.setDaemon(true)).build();
    }

    private ExecutorService pool(ThreadPoolTaskExecutorBuilder builder, String name) {
        ThreadPoolTaskExecutor executor = builder.threadNamePrefix(name + "-").customizers(this::configure).build();
        executor.initialize();
        return executor.getThreadPoolExecutor();
    }

    private void configure(ExecutorConfigurationSupport executor) {
        executor.setVirtualThreads(virtual);
        executor.setDaemon(true); // an application that ends without closing its context is not held up by them
    }
}
