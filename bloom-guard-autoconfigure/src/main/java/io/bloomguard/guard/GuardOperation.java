package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;

import java.util.function.Function;

/**
 * A resolved {@code @BloomGuarded}: the filter, how to get the key, and what a rejected call returns.
 *
 * @param filter      the filter that decides
 * @param key         how to compute the key from the arguments
 * @param emptyValue  the rejected call's return value, from the call's arguments
 * @param answersWithValue whether the method returns something that says "found" or "not found" (not
 *                    {@code void}), so that its results can be counted as false positives or negatives
 * @param description {@code Type.method} for logs and errors
 * @param resultKind  what the method returns: a Reactor {@code Mono} or {@code Flux} is checked when subscribed to
 *                    rather than when built ({@link ReactiveGuard})
 * @param batch       for a key parameter that holds many keys, how to read and prune them ({@link PrunedLookup});
 *                    {@code null} for a single key
 */
record GuardOperation(NamedBloomFilter filter, KeyExpression key, Function<@Nullable Object[], @Nullable Object> emptyValue,
        boolean answersWithValue, String description, ResultKind resultKind, @Nullable KeyBatch batch) {

    /** Whether the method returns a Reactor {@code Mono} or {@code Flux}. */
    boolean reactive() {
        return resultKind.reactive();
    }
}
