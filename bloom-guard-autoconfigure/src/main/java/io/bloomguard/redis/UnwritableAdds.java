package io.bloomguard.redis;

/**
 * What a filter does with keys that cannot be written to Redis now because it does not answer (down, frozen, or
 * the circuit breaker open): {@code bloom-guard.filters.<name>.on-add-failure}.
 *
 * <p>Usage: {@code backend.create("users", sizing, 1, UnwritableAdds.FAIL)}
 */
public enum UnwritableAdds {

    /**
     * Keep them for replay once Redis answers, and do not reject with the filter on this instance meanwhile. The
     * put succeeds; the other instances may reject the records until the replay.
     */
    BUFFER,

    /**
     * Throw {@link RedisUnavailableException} from the put, so that the caller's write fails (and its transaction
     * rolls back) rather than create a record another instance may reject; so too when the filter's generations
     * changed under every attempt to write them (rebuilds in quick succession). Keys that cannot be written for want
     * of a bitmap (none is loaded yet, or it is gone: no instance rejects with the filter then) are still buffered.
     */
    FAIL
}
