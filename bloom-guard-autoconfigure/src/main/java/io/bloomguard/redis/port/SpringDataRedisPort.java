package io.bloomguard.redis.port;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * {@link RedisPort} over Spring Data Redis's own connection API, for an application whose
 * {@link RedisConnectionFactory} is not Lettuce's (Jedis, Redisson's factory, or any other): slower than
 * {@link LettuceRedisPort}, since these clients block, but it needs nothing from the client beyond what Spring
 * Data Redis offers.
 *
 * <p>Each command borrows a connection from the factory (the client's pool), runs on one of a few threads
 * the port owns, and gives it back, so the backend still bounds every wait with its own timeout and several
 * commands can be in flight at once (a preload's chunks are uploaded in parallel this way). The client's own
 * timeouts still apply underneath.
 *
 * <p>It does not support {@link #waitForReplicas}: a command after the adds may borrow another connection from the
 * pool, and Redis's {@code WAIT} covers only the writes of the connection it is sent on.
 *
 * <p>Usage: {@code RedisPort port = new SpringDataRedisPort(connectionFactory, 8);}, or with the application's
 * threads: {@code new SpringDataRedisPort(connectionFactory, commandThreads)}
 *
 * @since 0.1.0
 */
public final class SpringDataRedisPort implements RedisPort {

    private static final AtomicInteger PORTS = new AtomicInteger();

    private final RedisConnectionFactory connectionFactory;
    private final ExecutorService commandThreads;

    /**
     * A port on daemon platform threads of its own, for use without Spring.
     *
     * @param threads how many commands may be in flight at once; keep it at or below the client's pool size,
     *                or commands wait for a connection there
     */
    public SpringDataRedisPort(RedisConnectionFactory connectionFactory, int threads) {
        this(connectionFactory, Executors.newFixedThreadPool(checked(threads), daemons()));
    }

    /**
     * A port whose commands run on {@code commandThreads}, which it owns from now on and shuts down when closed.
     *
     * @param commandThreads a bounded number of threads (at or below the client's pool size, or commands wait for
     *                       a connection there) with a queue, so that a caller never waits to hand a command over
     */
    public SpringDataRedisPort(RedisConnectionFactory connectionFactory, ExecutorService commandThreads) {
        this.connectionFactory = connectionFactory;
        this.commandThreads = commandThreads;
    }

    private static int checked(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        return threads;
    }

    private static ThreadFactory daemons() {
        int port = PORTS.incrementAndGet();
        AtomicInteger thread = new AtomicInteger();
        return runnable -> {
            Thread worker = new Thread(runnable, "bloom-guard-redis-" + port + "-" + thread.incrementAndGet());
            worker.setDaemon(true);
            return worker;
        };
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long start, long end) {
        return run(connection -> {
            byte[] value = connection.stringCommands().getRange(bytes(key), start, end);
            return (value != null) ? value : new byte[0];
        });
    }

    @Override
    public CompletableFuture<Long> setRange(String key, long offset, byte[] value) {
        return run(connection -> {
            connection.stringCommands().setRange(bytes(key), value, offset);
            // Spring Data's SETRANGE gives no reply; the backend only waits for it, so the length is not read.
            return (long) (offset + value.length);
        });
    }

    @Override
    public CompletableFuture<Map<String, String>> hashGetAll(String key) {
        return run(connection -> {
            Map<byte[], byte[]> raw = connection.hashCommands().hGetAll(bytes(key));
            Map<String, String> text = new LinkedHashMap<>();
            if (raw != null) {
                raw.forEach((field, value) -> text.put(string(field), string(value)));
            }
            return text;
        });
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return run(connection -> Boolean.TRUE.equals(connection.keyCommands().exists(bytes(key))) ? 1L : 0L);
    }

    @Override
    public CompletableFuture<Long> bitCount(String key) {
        return run(connection -> connection.stringCommands().bitCount(bytes(key)));
    }

    @Override
    public CompletableFuture<Boolean> expire(String key, long millis) {
        return run(connection -> connection.keyCommands().pExpire(bytes(key), millis));
    }

    @Override
    public CompletableFuture<Long> delete(String key) {
        return run(connection -> connection.keyCommands().del(bytes(key)));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        ReturnType output = switch (script.result()) {
            case INTEGER -> ReturnType.INTEGER;
            case BULK -> ReturnType.VALUE;
            case LIST -> ReturnType.MULTI;
        };
        byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
        for (int i = 0; i < keys.size(); i++) {
            keysAndArgs[i] = bytes(keys.get(i));
        }
        for (int i = 0; i < args.size(); i++) {
            keysAndArgs[keys.size() + i] = bytes(args.get(i));
        }
        return run(connection -> {
            try {
                return connection.scriptingCommands().evalSha(script.sha1(), output, keys.size(), keysAndArgs);
            }
            catch (DataAccessException ex) {
                if (!isNoScript(ex)) {
                    throw ex;
                }
                // First use on this server (or after a restart or SCRIPT FLUSH): EVAL also caches it there.
                return connection.scriptingCommands().eval(script.source().getBytes(StandardCharsets.UTF_8), output,
                        keys.size(), keysAndArgs);
            }
        });
    }

    @Override
    public void close() {
        commandThreads.shutdownNow();
    }

    private <T> CompletableFuture<T> run(Function<RedisConnection, T> command) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try (RedisConnection connection = connectionFactory.getConnection()) {
                    return command.apply(connection);
                }
            }, commandThreads);
        }
        catch (RejectedExecutionException ex) {
            return CompletableFuture.failedFuture(new IllegalStateException("this Redis port is closed", ex));
        }
    }

    /** Clients word it differently and wrap it in their own exceptions; the server's reply starts so. */
    private static boolean isNoScript(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
