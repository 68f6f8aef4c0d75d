package io.bloomguard.redis.engine;

import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How the backend's commands reach Redis: through the port, behind the {@link CircuitBreaker}, each reply awaited
 * no longer than its timeout. Every failure, be it a command that could not be sent, an error reply or a timeout,
 * becomes a {@link RedisUnavailableException} and counts towards opening the breaker; every reply counts as a
 * success, and closes an open breaker.
 *
 * <p>Usage: {@code byte[] block = commands.call(port -> port.getRange(key, 0, 63), settings.checkTimeout());}
 */
final class RedisCommands {

    private final Supplier<RedisPort> port;
    /** Null for a {@linkplain #lastAttempt last attempt}, which no breaker holds back and a deadline bounds. */
    private final @Nullable CircuitBreaker breaker;
    /** {@code System.nanoTime()} after which a last attempt waits for no more replies. */
    private final long deadline;
    /** Told of every reply and every failure: a filter's {@link RedisAccessState}. */
    private final Outcomes outcomes;

    public RedisCommands(Supplier<RedisPort> port, CircuitBreaker breaker) {
        this(port, breaker, 0, Outcomes.NONE);
    }

    private RedisCommands(Supplier<RedisPort> port, @Nullable CircuitBreaker breaker, long deadline,
            Outcomes outcomes) {
        this.port = port;
        this.breaker = breaker;
        this.deadline = deadline;
        this.outcomes = outcomes;
    }

    /** The same commands, through the same breaker, each outcome also reported to {@code outcomes}. */
    public RedisCommands reportingTo(Outcomes outcomes) {
        return new RedisCommands(port, breaker, deadline, outcomes);
    }

    /**
     * The same connection for one last attempt, when the instance stops: past the breaker (open for a failure that
     * may well be over, it would refuse the one chance there is) and leaving it as it is, each reply waited for no
     * longer than its own timeout and all of them together no longer than {@code budget}.
     */
    public RedisCommands lastAttempt(Duration budget) {
        return new RedisCommands(port, null, System.nanoTime() + budget.toNanos(), Outcomes.NONE);
    }

    /** Whether these commands' circuit breaker is open: they fail at once, but for one trial at a time. */
    boolean breakerOpen() {
        return breaker != null && breaker.isOpen();
    }

    /** Sends a command and waits for its reply. */
    public <T> T call(Function<RedisPort, CompletableFuture<T>> command, Duration timeout) {
        return await(send(command), timeout);
    }

    /**
     * Sends a command unless the breaker is open, without waiting: for several commands in flight at once, each
     * reply then awaited with {@link #await}.
     */
    public <T> CompletableFuture<T> send(Function<RedisPort, CompletableFuture<T>> command) {
        if (breaker != null && !breaker.tryAcquire()) {
            throw outcomes.failed(new RedisUnavailableException("Redis is unavailable (circuit breaker open: most"
                    + " recent calls failed)"));
        }
        if (breaker == null && deadline - System.nanoTime() <= 0) {
            throw new RedisUnavailableException("Redis did not answer within the time given to the last attempt");
        }
        try {
            return command.apply(port.get());
        }
        catch (RuntimeException ex) {
            failed();
            throw outcomes.failed(new RedisUnavailableException("Could not send a command to Redis: "
                    + ex.getMessage(), ex));
        }
    }

    /** The reply to a command {@linkplain #send sent}. */
    public <T> T await(CompletableFuture<T> reply, Duration timeout) {
        Duration wait = (breaker == null) ? min(timeout, Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))) : timeout;
        try {
            T value = reply.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            answered();
            return value;
        }
        catch (TimeoutException ex) {
            failed();
            throw outcomes.failed(unavailable(ex, wait));
        }
        catch (ExecutionException ex) {
            failed();
            throw outcomes.failed(unavailable(ex.getCause(), wait));
        }
        catch (CancellationException ex) {
            // Lettuce cancels the commands in flight when their connection is closed or reset, as a killed
            // server's is: as much a failure as an error reply, never an exception of its own for the caller.
            failed();
            throw outcomes.failed(unavailable(ex, wait));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("Interrupted while waiting for Redis", ex);
        }
    }

    /** Awaits every reply in turn, then empties the list for the next commands. */
    public void awaitAll(List<? extends CompletableFuture<?>> replies, Duration timeout) {
        for (CompletableFuture<?> reply : replies) {
            await(reply, timeout);
        }
        replies.clear();
    }

    /**
     * Sends a command and completes with its reply, or with a {@link RedisUnavailableException} (wrapped in a
     * {@code CompletionException}, as a stage's failures are) when it fails or does not answer within
     * {@code timeout}. No thread waits meanwhile.
     */
    <T> CompletableFuture<T> callAsync(Function<RedisPort, CompletableFuture<T>> command, Duration timeout) {
        CompletableFuture<T> reply;
        try {
            reply = send(command);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).handle((value, failure) -> {
            if (failure == null) {
                answered();
                return value;
            }
            failed();
            throw outcomes.failed(unavailable((failure instanceof CompletionException) ? failure.getCause() : failure,
                    timeout));
        });
    }

    /**
     * Sends a command past the breaker, without counting it towards opening it, and completes once it is answered
     * within {@code timeout}: that reply closes the breaker, since Redis answers again. For the {@link RecoveryProbe}.
     */
    public CompletableFuture<Void> probe(Function<RedisPort, CompletableFuture<?>> command, Duration timeout) {
        CompletableFuture<?> reply;
        try {
            reply = command.apply(port.get());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).thenRun(this::answered);
    }

    private void answered() {
        if (breaker != null) {
            breaker.onSuccess();
        }
        outcomes.answered();
    }

    private void failed() {
        if (breaker != null) {
            breaker.onFailure();
        }
    }

    private static Duration min(Duration a, Duration b) {
        return (a.compareTo(b) <= 0) ? a : b;
    }

    /** The exception a command that timed out ({@code TimeoutException}) or failed ({@code cause}) is reported as. */
    private static RedisUnavailableException unavailable(Throwable cause, Duration timeout) {
        return (cause instanceof TimeoutException)
                ? new RedisUnavailableException("Redis did not answer within " + timeout.toMillis() + " ms")
                : new RedisUnavailableException("Redis command failed: " + cause.getMessage(), cause);
    }

    /** What a caller learns of each command's outcome, beside the breaker. */
    public interface Outcomes {

        Outcomes NONE = new Outcomes() {
            @Override
            public void answered() {
            }

            @Override
            public RedisUnavailableException failed(RedisUnavailableException failure) {
                return failure;
            }
        };

        /** Redis answered a command. */
        void answered();

        /**
         * A command failed, or was not sent (breaker open, no connection).
         *
         * @return the exception to throw: {@code failure}, or what it turned out to be (a refusal)
         */
        RedisUnavailableException failed(RedisUnavailableException failure);
    }
}
