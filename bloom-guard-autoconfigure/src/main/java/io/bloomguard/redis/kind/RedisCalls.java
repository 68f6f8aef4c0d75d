package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.RedisPort;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * How a kind sends commands for the filter it serves, through that filter's breakers and timeouts: sends first and
 * awaits after, so that commands to several shards share one round trip.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface RedisCalls {

    <T> CompletableFuture<T> send(Function<RedisPort, CompletableFuture<T>> command);

    <T> T await(CompletableFuture<T> reply);
}
