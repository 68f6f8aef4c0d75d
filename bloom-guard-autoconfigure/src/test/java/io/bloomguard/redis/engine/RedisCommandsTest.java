package io.bloomguard.redis.engine;

import io.bloomguard.redis.RedisBreakerSettings;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Whatever way a command fails, its caller sees Redis as unavailable, and the breaker counts the failure. */
class RedisCommandsTest {

    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private final CircuitBreaker breaker = new CircuitBreaker("checks", CircuitBreakerTest.breaker(RedisBreakerSettings.defaults()), TIMEOUT,
            System::nanoTime);

    private final RedisCommands commands = new RedisCommands(() -> null, breaker);

    /** Lettuce cancels the commands in flight on a connection that is closed under them (a killed server's). */
    @Test
    void aCommandCancelledUnderItsCallerIsAnOutage() {
        for (int call = 0; call < 2; call++) {
            assertThatThrownBy(() -> commands.call(port -> cancelled(), TIMEOUT))
                .isInstanceOf(RedisUnavailableException.class);
        }
        assertThat(breaker.isOpen()).as("two failures, nothing answered: the breaker opens").isTrue();
    }

    @Test
    void aCommandThatFailsOrIsNotAnsweredInTimeIsAnOutage() {
        assertThatThrownBy(() -> commands.call(port -> CompletableFuture.failedFuture(new IllegalStateException(
                "Connection closed")), TIMEOUT))
            .isInstanceOf(RedisUnavailableException.class)
            .hasMessageContaining("Connection closed");
        assertThatThrownBy(() -> commands.call(port -> new CompletableFuture<>(), TIMEOUT))
            .isInstanceOf(RedisUnavailableException.class)
            .hasMessageContaining("did not answer within 50 ms");
    }

    private static CompletableFuture<Object> cancelled() {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        reply.cancel(false);
        return reply;
    }
}
