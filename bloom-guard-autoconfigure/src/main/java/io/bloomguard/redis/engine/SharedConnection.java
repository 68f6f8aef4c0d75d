package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisPort;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The one connection the filters of a backend share: opened on first use; when it drops (a restart of Redis, a
 * failover, a cut network) replaced by a new one as soon as one can be opened, tried every reconnect delay, rather
 * than when the Redis client's own reconnect gets to it, whose back-off grows to many seconds; closed for good by
 * {@link #release()}.
 *
 * <p>Usage: {@code RedisPort port = connection.get(); ... connection.reconnectIfDown(executor);}
 */
final class SharedConnection {

    private static final Log logger = LogFactory.getLog(SharedConnection.class);

    private final Supplier<RedisPort> connector;
    private final long reconnectDelayNanos;
    private final AtomicBoolean reconnecting = new AtomicBoolean();
    private volatile long lastAttempt;
    private volatile @Nullable RedisPort port;
    /**
     * Guards {@link #released} and the first opening. A lock, not a monitor: the first call opens the connection
     * while holding it, on a request thread, and a monitor held across that would pin a virtual thread on Java 21.
     */
    private final ReentrantLock lock = new ReentrantLock();
    /** Set once {@link #release()} has closed the connection: nothing may open another. Guarded by the lock. */
    private boolean released;

    public SharedConnection(Supplier<RedisPort> connector, Duration reconnectDelay) {
        this.connector = connector;
        this.reconnectDelayNanos = reconnectDelay.toNanos();
        this.lastAttempt = System.nanoTime() - reconnectDelayNanos;
    }

    /** The connection, opened now if it is not yet. */
    public RedisPort get() {
        RedisPort current = port;
        if (current == null) {
            lock.lock();
            try {
                if (released) {
                    throw new IllegalStateException("the Redis backend is closed");
                }
                current = port;
                if (current == null) {
                    current = connector.get();
                    port = current;
                }
            }
            finally {
                lock.unlock();
            }
        }
        return current;
    }

    /**
     * While the connection is down, opens a new one on {@code executor} (opening may wait for the connect timeout),
     * unless an attempt is under way or the last one began less than the reconnect delay ago. Once open, the new
     * connection replaces the old one, which is closed: commands still waiting in it fail, as they would anyway.
     */
    public void reconnectIfDown(Executor executor) {
        RedisPort current = port;
        if (current == null || current.isConnected() || System.nanoTime() - lastAttempt < reconnectDelayNanos
                || !reconnecting.compareAndSet(false, true)) {
            return;
        }
        lastAttempt = System.nanoTime();
        try {
            executor.execute(() -> {
                try {
                    replace(current);
                }
                finally {
                    reconnecting.set(false);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            reconnecting.set(false); // the backend is closing
        }
    }

    private void replace(RedisPort down) {
        RedisPort fresh;
        try {
            fresh = connector.get();
        }
        catch (RuntimeException ex) {
            logger.debug("Redis is not reachable yet: " + ex.getMessage());
            return;
        }
        boolean replaced;
        lock.lock();
        try {
            replaced = !released && port == down;
            if (replaced) {
                port = fresh;
            }
        }
        finally {
            lock.unlock();
        }
        if (!replaced) {
            fresh.close();
            return;
        }
        logger.info("Reconnected to Redis on a new connection");
        down.close();
    }

    /** Closes the connection for good; commands from then on fail. Releasing again does nothing. */
    public void release() {
        RedisPort current;
        lock.lock();
        try {
            released = true;
            current = port;
            port = null;
        }
        finally {
            lock.unlock();
        }
        if (current != null) {
            current.close();
        }
    }
}
