package io.bloomguard.redis.port;

import io.bloomguard.core.BackendUnavailableException;

/**
 * Redis did not answer in time, could not be reached, or the circuit breaker is open after such a failure.
 * The guard applies the filter's {@code on-backend-failure} policy to it.
 *
 * @since 0.1.0
 */
public class RedisUnavailableException extends BackendUnavailableException {

    public RedisUnavailableException(String message) {
        super(message);
    }

    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
