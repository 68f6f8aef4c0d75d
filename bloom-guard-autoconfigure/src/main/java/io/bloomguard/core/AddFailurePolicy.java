package io.bloomguard.core;

/**
 * What a write does when its key cannot reach a shared filter's store (Redis down, frozen, or its circuit breaker
 * open): the choice between keeping writes available and keeping every instance right.
 * {@code bloom-guard.filters.<name>.on-add-failure}.
 *
 * @since 0.1.0
 */
public enum AddFailurePolicy {

    /**
     * Keep the key for replay once the store answers again, and stop trusting the filter on this instance
     * meanwhile. The write succeeds; other instances may reject its record until the replay.
     */
    BUFFER,

    /**
     * Fail the write: the put throws inside the method's transaction, which rolls back, so no instance can ever
     * reject a record whose key the store lacks; so too when the filter's generations changed under every attempt to
     * write them (rebuilds in quick succession). Keys that cannot be written for want of a bitmap (none is loaded
     * yet, or it is gone: no instance rejects with the filter then) are still buffered.
     */
    FAIL
}
