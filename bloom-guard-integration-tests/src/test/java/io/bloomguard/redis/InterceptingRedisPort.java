package io.bloomguard.redis;

import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@link RedisPort} that runs a test's action just before a chosen command is sent to the real server: to hold
 * the sending thread at a gate, to fail the command, or to change the server's data first (a {@code DEL}).
 *
 * <p>Usage: {@code port.beforeNext("eval:add", command -> gate.await());} where the name is the command in lower
 * case ({@code hgetall}, {@code setrange}, ...), or {@code eval:} and the script's name.
 */
final class InterceptingRedisPort implements RedisPort {

    /** A command about to be sent: its name, its keys, and the real server, for an action's own commands. */
    record Command(String name, List<String> keys, RedisPort server) {
    }

    private record Rule(String name, Consumer<Command> action, boolean once) {
    }

    private final RedisPort delegate;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();

    InterceptingRedisPort(RedisPort delegate) {
        this.delegate = delegate;
    }

    /** Runs {@code action} before the next command called {@code name}, once. */
    void beforeNext(String name, Consumer<Command> action) {
        rules.add(new Rule(name, action, true));
    }

    /** Runs {@code action} before every command called {@code name}, until {@link #clear()}. */
    void beforeEvery(String name, Consumer<Command> action) {
        rules.add(new Rule(name, action, false));
    }

    void clear() {
        rules.clear();
    }

    /** An action that holds the sending thread until {@code gate} opens, counting down {@code arrived} first. */
    static Consumer<Command> holdAt(CountDownLatch arrived, CountDownLatch gate) {
        return command -> {
            arrived.countDown();
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate before " + command.name());
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        };
    }

    private void before(String name, List<String> keys) {
        for (Rule rule : rules) {
            if (rule.name.equals(name) && (!rule.once || rules.remove(rule))) {
                rule.action.accept(new Command(name, keys, delegate));
            }
        }
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long start, long end) {
        before("getrange", List.of(key));
        return delegate.getRange(key, start, end);
    }

    @Override
    public CompletableFuture<Long> setRange(String key, long offset, byte[] value) {
        before("setrange", List.of(key));
        return delegate.setRange(key, offset, value);
    }

    @Override
    public CompletableFuture<Map<String, String>> hashGetAll(String key) {
        before("hgetall", List.of(key));
        return delegate.hashGetAll(key);
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        before("exists", List.of(key));
        return delegate.exists(key);
    }

    @Override
    public CompletableFuture<Long> bitCount(String key) {
        before("bitcount", List.of(key));
        return delegate.bitCount(key);
    }

    @Override
    public CompletableFuture<Boolean> expire(String key, long millis) {
        before("pexpire", List.of(key));
        return delegate.expire(key, millis);
    }

    @Override
    public CompletableFuture<Long> delete(String key) {
        before("del", List.of(key));
        return delegate.delete(key);
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        before("eval:" + script.name(), keys);
        return delegate.eval(script, keys, args);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
