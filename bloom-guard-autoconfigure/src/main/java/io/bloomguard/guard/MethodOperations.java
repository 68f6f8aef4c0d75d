package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

/**
 * The operations of one method, as {@link BloomOperationSource} caches them.
 *
 * @param guard its {@code @BloomGuarded}, or {@code null}
 * @param put   its {@code @BloomPut} (written on it, or taken from {@code save} by a Spring Data repository's
 *              {@code saveAll}), or {@code null}
 * @param remove its {@code @BloomRemove}, or {@code null}
 */
record MethodOperations(@Nullable GuardOperation guard, @Nullable PutOperation put, @Nullable RemoveOperation remove) {

    /** For a method with none. */
    static final MethodOperations NONE = new MethodOperations(null, null, null);

    boolean isEmpty() {
        return guard == null && !writes();
    }

    /** Whether it puts or removes keys: what the interceptor inside the transaction does. */
    boolean writes() {
        return put != null || remove != null;
    }
}
