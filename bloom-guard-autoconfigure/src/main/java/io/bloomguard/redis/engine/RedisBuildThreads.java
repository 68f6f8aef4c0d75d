package io.bloomguard.redis.engine;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;

/**
 * What a filter's builds share with the other filters of its {@link io.bloomguard.redis.RedisFilterBackend}: the threads builds run on,
 * the maintenance thread that renews the load lock, and the permits that let startup builds run one at a time.
 *
 * <p>Usage: {@code backend.builders().execute(build); backend.startupBuilds().acquireUninterruptibly();}
 *
 * @param builders      threads builds run on
 * @param scheduler     the backend's maintenance thread
 * @param startupBuilds one permit: startup builds run one at a time
 */
record RedisBuildThreads(ExecutorService builders, ScheduledExecutorService scheduler,
        Semaphore startupBuilds) {
}
