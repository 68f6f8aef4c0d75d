package io.bloomguard.core;

/**
 * A filter's store did not answer in time, could not be reached, or is held back by a circuit breaker after such
 * a failure. The guard applies the filter's {@code on-backend-failure} policy to it.
 *
 * @since 0.1.0
 */
public class BackendUnavailableException extends RuntimeException {

    public BackendUnavailableException(String message) {
        super(message);
    }

    public BackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
