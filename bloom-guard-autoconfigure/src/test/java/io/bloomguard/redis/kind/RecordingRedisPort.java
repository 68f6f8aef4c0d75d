package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A port that talks to no server: it records each command as text ({@code getrange key start end},
 * {@code eval:name keys... | args...}) and answers with the reply the test queued next. For checking what a kind
 * sends and how it reads the reply, without Redis.
 */
final class RecordingRedisPort implements RedisPort, RedisCalls {

    final List<String> sent = new ArrayList<>();
    private final List<Object> replies = new ArrayList<>();

    RecordingRedisPort replying(Object... queued) {
        replies.addAll(List.of(queued));
        return this;
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> next(String command) {
        sent.add(command);
        if (replies.isEmpty()) {
            throw new AssertionError("no reply queued for " + command);
        }
        return CompletableFuture.completedFuture((T) replies.remove(0));
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long start, long end) {
        return next("getrange " + key + " " + start + " " + end);
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return next("eval:" + script.name() + " " + String.join(" ", keys) + " | " + String.join(" ", args));
    }

    @Override
    public CompletableFuture<Long> setRange(String key, long offset, byte[] value) {
        return next("setrange " + key + " " + offset);
    }

    @Override
    public CompletableFuture<Map<String, String>> hashGetAll(String key) {
        return next("hgetall " + key);
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return next("exists " + key);
    }

    @Override
    public CompletableFuture<Long> bitCount(String key) {
        return next("bitcount " + key);
    }

    @Override
    public CompletableFuture<Boolean> expire(String key, long millis) {
        return next("expire " + key + " " + millis);
    }

    @Override
    public CompletableFuture<Long> delete(String key) {
        return next("del " + key);
    }

    @Override
    public <T> CompletableFuture<T> send(Function<RedisPort, CompletableFuture<T>> command) {
        return command.apply(this);
    }

    @Override
    public <T> T await(CompletableFuture<T> reply) {
        return reply.join();
    }

    @Override
    public void close() {
    }
}
