package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.RedisPort;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Sends one command for a filter, through its breaker and timeout, and waits for the reply.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
@FunctionalInterface
public interface RedisCaller {

    <T> T call(Function<RedisPort, CompletableFuture<T>> command);
}
