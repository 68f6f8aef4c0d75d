package io.bloomguard.registry;

/**
 * What a write does when its key cannot reach a shared filter's store (Redis unreachable): the choice between
 * keeping writes available and keeping every instance right.
 */
public enum AddFailurePolicy {

    /**
     * Keep the key for replay once the store answers again, and stop trusting the filter on this instance
     * meanwhile. The write succeeds; other instances may reject its record until the replay.
     */
    BUFFER,

    /**
     * Fail the write: the put throws inside the method's transaction, which rolls back, so no instance can ever
     * reject a record whose key the store lacks.
     */
    FAIL
}
