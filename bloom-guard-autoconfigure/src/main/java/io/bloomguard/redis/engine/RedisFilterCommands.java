package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisCalls;
import io.bloomguard.redis.port.RedisPort;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How one filter's commands reach Redis: single-key checks through the checks' circuit breaker within the check
 * timeout, every other command through the other breaker within the command timeout ({@link RedisCommands} waits
 * and counts), each outcome told to the filter's {@link RedisAccessState}.
 *
 * <p>A closed filter makes a last attempt to hand Redis what it still owes, since nothing will later: the commands
 * a thread sends while it runs {@link #lastAttempt} or {@link #within} go past the breaker (open, perhaps, for a
 * failure that is over), each within its own timeout and all of them within the attempt's budget. Commands other
 * threads send meanwhile are not part of that attempt.
 *
 * <p>Usage: {@code Map<String, String> meta = commands.call(port -> port.hashGetAll(key));}
 */
final class RedisFilterCommands implements RedisCalls {

    private final RedisCommands checks;
    private final RedisCommands commands;
    private final Duration checkTimeout;
    private final Duration commandTimeout;
    private final Duration lastAttemptTimeout;
    /** The last attempt this thread is making: its commands go through it instead of {@link #commands}. */
    private final ThreadLocal<@Nullable RedisCommands> lastAttempt = new ThreadLocal<>();
    /** Threads in a last attempt: while there are none, commands (adds: the guard's path) look up no thread-local. */
    private final AtomicInteger attempting = new AtomicInteger();

    public RedisFilterCommands(RedisCommands checks, RedisCommands commands, EngineSettings settings) {
        this.checks = checks;
        this.commands = commands;
        this.checkTimeout = settings.checkTimeout();
        this.commandTimeout = settings.commandTimeout();
        this.lastAttemptTimeout = settings.lastAttemptTimeout();
    }

    /** Sends a command and waits for its reply. */
    public <T> T call(Function<RedisPort, CompletableFuture<T>> command) {
        return current().call(command, commandTimeout);
    }

    /** Sends a command without waiting, for several in flight at once; each reply is {@linkplain #await awaited}. */
    @Override
    public <T> CompletableFuture<T> send(Function<RedisPort, CompletableFuture<T>> command) {
        return current().send(command);
    }

    /** The reply to a command {@linkplain #send sent} by this thread. */
    @Override
    public <T> T await(CompletableFuture<T> reply) {
        return current().await(reply, commandTimeout);
    }

    /** Sends a single-key check unless the checks' breaker is open, without waiting. */
    public <T> CompletableFuture<T> sendCheck(Function<RedisPort, CompletableFuture<T>> check) {
        return checks.send(check);
    }

    /** The reply to a check {@linkplain #sendCheck sent}. */
    public <T> T awaitCheck(CompletableFuture<T> reply) {
        return checks.await(reply, checkTimeout);
    }

    /** Sends a single-key check; the future fails as {@link RedisCommands#callAsync} says. No thread waits. */
    public <T> CompletableFuture<T> checkAsync(Function<RedisPort, CompletableFuture<T>> check) {
        return checks.callAsync(check, checkTimeout);
    }

    /** Commands past the breaker for one command timeout: for the access check, which an open breaker would refuse. */
    public RedisCommands pastBreaker() {
        return commands.lastAttempt(commandTimeout);
    }

    /** A new last attempt, with the whole budget of {@link RedisBackendSettings#lastAttemptTimeout()}. */
    public RedisCommands newLastAttempt() {
        return commands.lastAttempt(lastAttemptTimeout);
    }

    /** Runs {@code work} as a {@linkplain #newLastAttempt() new last attempt}. */
    public void lastAttempt(Runnable work) {
        within(newLastAttempt(), work);
    }

    /** Runs {@code work} as a {@linkplain #newLastAttempt() new last attempt}, and returns what it returns. */
    public <T> T lastAttempt(Supplier<T> work) {
        RedisCommands previous = enter(newLastAttempt());
        try {
            return work.get();
        }
        finally {
            leave(previous);
        }
    }

    /** Runs {@code work} with the commands this thread sends going through {@code attempt}, a last attempt. */
    public void within(RedisCommands attempt, Runnable work) {
        RedisCommands previous = enter(attempt);
        try {
            work.run();
        }
        finally {
            leave(previous);
        }
    }

    public boolean checksBreakerOpen() {
        return checks.breakerOpen();
    }

    public boolean commandsBreakerOpen() {
        return commands.breakerOpen();
    }

    private RedisCommands current() {
        if (attempting.get() == 0) {
            return commands;
        }
        RedisCommands attempt = lastAttempt.get();
        return (attempt != null) ? attempt : commands;
    }

    private @Nullable RedisCommands enter(RedisCommands attempt) {
        attempting.incrementAndGet();
        RedisCommands previous = lastAttempt.get();
        lastAttempt.set(attempt);
        return previous;
    }

    private void leave(@Nullable RedisCommands previous) {
        if (previous != null) {
            lastAttempt.set(previous);
        }
        else {
            lastAttempt.remove();
        }
        attempting.decrementAndGet();
    }
}
