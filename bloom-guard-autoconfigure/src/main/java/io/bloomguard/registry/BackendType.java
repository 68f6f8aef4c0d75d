package io.bloomguard.registry;

/**
 * Where a filter's bits live.
 *
 * @since 0.1.0
 */
public enum BackendType {

    /** In this JVM's memory. */
    LOCAL,

    /** In Redis, shared by every instance. */
    REDIS
}
