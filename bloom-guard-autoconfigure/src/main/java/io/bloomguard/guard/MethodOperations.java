package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

/**
 * The operations of one method, as {@link BloomOperationSource} caches them.
 *
 * @param guard its {@code @BloomGuarded}, or {@code null}
 * @param put   its {@code @BloomPut} (written on it, or taken from {@code save} by a Spring Data repository's
 *              {@code saveAll}), or {@code null}
 */
record MethodOperations(@Nullable GuardOperation guard, @Nullable PutOperation put) {

    /** For a method with neither. */
    static final MethodOperations NONE = new MethodOperations(null, null);

    boolean isEmpty() {
        return guard == null && put == null;
    }
}
