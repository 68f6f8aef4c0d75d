package io.bloomguard.redis.port;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The few Redis operations the backend needs, asynchronous so that the caller bounds each wait with its own
 * timeout and many commands can be in flight on one connection. Keys are UTF-8 strings; values are bytes.
 *
 * @since 0.1.0
 */
public interface RedisPort extends AutoCloseable {

    /** {@code GETRANGE key start end} (inclusive); an empty array when the key does not exist. */
    CompletableFuture<byte[]> getRange(String key, long start, long end);

    /** {@code SETRANGE key offset value}. */
    CompletableFuture<Long> setRange(String key, long offset, byte[] value);

    /** {@code HGETALL key} as text. */
    CompletableFuture<Map<String, String>> hashGetAll(String key);

    /** {@code EXISTS key}: 1 or 0. */
    CompletableFuture<Long> exists(String key);

    /** {@code BITCOUNT key}. */
    CompletableFuture<Long> bitCount(String key);

    /** {@code PEXPIRE key millis}. */
    CompletableFuture<Boolean> expire(String key, long millis);

    /** {@code DEL key}. */
    CompletableFuture<Long> delete(String key);

    /**
     * Runs a script by its SHA-1, loading it when the server answers {@code NOSCRIPT}. On Redis Cluster it runs
     * on the node of the first key.
     *
     * @return a {@code Long} or a {@code byte[]}, as the script's {@link LuaScript#result()} says
     */
    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args);

    /**
     * {@code WAIT replicas timeout}: waits until the writes this port sent before it have reached {@code replicas}
     * replicas, or {@code timeout} has passed, and answers how many replicas have them. Redis waits for the last
     * write of the client that sends the {@code WAIT}, so it must go over the connection that sent those writes
     * (and, on Redis Cluster, to the node that took them); a port that cannot promise that must not override this.
     * While it waits, Redis answers nothing else sent on that connection.
     *
     * <p>This default does not support it: the future fails with an {@link UnsupportedOperationException}, and
     * {@code bloom-guard.redis.wait-for-replicas} cannot be used with the port.
     *
     * @since 0.1.0
     */
    default CompletableFuture<Long> waitForReplicas(int replicas, Duration timeout) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getName()
                + " cannot send WAIT on the connection that wrote the adds; use LettuceRedisPort on a Redis server"
                + " (not a cluster) to wait for replicas"));
    }

    /**
     * Opens a subscriber connection of its own, for the near copy's ordered reads, or {@code null} when this port
     * cannot (a client other than Lettuce, a cluster): the near copy then leaves absent keys to Redis.
     */
    default @Nullable RedisSubscriber subscriber(RedisSubscriber.Listener listener) {
        return null;
    }

    /**
     * Whether the connection is up. A port that cannot tell says {@code true}; one that says {@code false} is
     * replaced by a new connection (the backend opens one of its own).
     */
    default boolean isConnected() {
        return true;
    }

    @Override
    void close();
}
