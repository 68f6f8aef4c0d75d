package io.bloomguard.registry;

/**
 * What a guarded call does when the filter's backend fails (an exception from the check).
 *
 * @since 0.1.0
 */
public enum BackendFailurePolicy {

    /** Run the method as if the key might exist: an outage costs database load, never a wrong answer. */
    ALLOW,

    /** Answer with the empty value, as if the key were absent. Only for data where a miss is harmless. */
    REJECT,

    /** Let the backend's exception reach the caller. */
    THROW
}
