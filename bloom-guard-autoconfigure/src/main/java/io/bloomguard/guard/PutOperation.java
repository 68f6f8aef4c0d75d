package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;

/**
 * A resolved {@code @BloomPut}: the filter and how to get the key(s).
 *
 * @param filter      the filter written to
 * @param key         how to compute the key from the arguments and, maybe, the result
 * @param description {@code Type.method} for logs and errors
 */
record PutOperation(NamedBloomFilter filter, KeyExpression key, String description) {
}
