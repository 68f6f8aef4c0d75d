package io.bloomguard.guard;

import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.registry.NamedBloomFilter;

/**
 * A resolved {@code @BloomPut}: the filter and how to get the key(s).
 *
 * @param filter      the filter written to
 * @param key         how to compute the key from the arguments and, maybe, the result
 * @param description {@code Type.method} for logs and errors
 * @param kind        whether the method returns what it wrote or a promise of it, and which
 */
record PutOperation(NamedBloomFilter filter, KeyExpression key, String description, DeferredPuts.Kind kind) {

    /** Whether other instances read the filter too, so that only a put before the commit keeps them right. */
    boolean sharedFilter() {
        return filter.backend() instanceof SharedBloomFilter;
    }
}
