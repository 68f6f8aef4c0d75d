package io.bloomguard.redis.port;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@link RedisPort} over one Lettuce connection of its own, opened from the application's client (standalone,
 * sentinel or cluster), so that it shares the application's address, credentials and TLS but none of its
 * connection settings: the backend bounds every wait itself.
 *
 * <p>Usage: {@code RedisPort port = LettuceRedisPort.connect(connectionFactory.getRequiredNativeClient());}
 *
 * @since 0.1.0
 */
public final class LettuceRedisPort implements RedisPort {

    private final AbstractRedisClient client;
    private final StatefulConnection<byte[], byte[]> connection;
    private final RedisClusterAsyncCommands<byte[], byte[]> commands;

    private LettuceRedisPort(AbstractRedisClient client, StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands) {
        this.client = client;
        this.connection = connection;
        this.commands = commands;
    }

    /** Opens a connection of the client's kind: one to a server, or a cluster connection that routes by slot. */
    public static LettuceRedisPort connect(AbstractRedisClient client) {
        if (client instanceof RedisClusterClient cluster) {
            var connection = cluster.connect(ByteArrayCodec.INSTANCE);
            return new LettuceRedisPort(client, connection, connection.async());
        }
        if (client instanceof RedisClient standalone) {
            var connection = standalone.connect(ByteArrayCodec.INSTANCE);
            return new LettuceRedisPort(client, connection, connection.async());
        }
        throw new IllegalArgumentException("Unsupported Lettuce client " + client.getClass().getName());
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long start, long end) {
        return commands.getrange(bytes(key), start, end).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Long> setRange(String key, long offset, byte[] value) {
        return commands.setrange(bytes(key), offset, value).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Map<String, String>> hashGetAll(String key) {
        return commands.hgetall(bytes(key)).toCompletableFuture().thenApply(raw -> {
            Map<String, String> text = new LinkedHashMap<>();
            raw.forEach((field, value) -> text.put(string(field), string(value)));
            return text;
        });
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return commands.exists(bytes(key)).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Long> bitCount(String key) {
        return commands.bitcount(bytes(key)).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Boolean> expire(String key, long millis) {
        return commands.pexpire(bytes(key), millis).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Long> delete(String key) {
        return commands.del(bytes(key)).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        byte[][] keyBytes = keys.stream().map(LettuceRedisPort::bytes).toArray(byte[][]::new);
        byte[][] argBytes = args.stream().map(LettuceRedisPort::bytes).toArray(byte[][]::new);
        ScriptOutputType output = switch (script.result()) {
            case INTEGER -> ScriptOutputType.INTEGER;
            case BULK -> ScriptOutputType.VALUE;
            case LIST -> ScriptOutputType.MULTI;
        };
        CompletionStage<Object> bySha = commands.evalsha(script.sha1(), output, keyBytes, argBytes);
        return bySha.toCompletableFuture().handle((result, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(result);
            }
            Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                // First use on this server (or after a restart or SCRIPT FLUSH): EVAL also caches it there.
                return commands.<Object>eval(script.source().getBytes(StandardCharsets.UTF_8), output, keyBytes,
                        argBytes).toCompletableFuture();
            }
            return CompletableFuture.<Object>failedFuture(cause);
        }).thenCompose(future -> future);
    }

    /**
     * {@code WAIT} over the one connection every command of this port goes through, so it covers the adds sent
     * before it. Redis then blocks this connection until the replicas answer or the timeout passes: every command
     * sent after it (checks included) waits behind it. Not on a cluster: the cluster connection would send it to
     * some node, not necessarily the one of the shard the adds went to.
     */
    @Override
    public CompletableFuture<Long> waitForReplicas(int replicas, Duration timeout) {
        if (client instanceof RedisClusterClient) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("WAIT is not supported on Redis"
                    + " Cluster by bloom-guard: it must reach the node of each shard's slot on the connection that"
                    + " wrote there; set bloom-guard.redis.wait-for-replicas to 0"));
        }
        return commands.waitForReplication(replicas, timeout.toMillis()).toCompletableFuture();
    }

    /** A pub/sub connection to the server, or to the nodes of a cluster. */
    @Override
    public @Nullable RedisSubscriber subscriber(RedisSubscriber.Listener listener) {
        if (client instanceof RedisClusterClient cluster) {
            return new LettuceClusterSubscriber(cluster, listener);
        }
        return (client instanceof RedisClient standalone) ? new LettuceRedisSubscriber(standalone, listener) : null;
    }

    /** {@code false} while the connection is down (Lettuce's own reconnect not yet done). */
    @Override
    public boolean isConnected() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        connection.close();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
