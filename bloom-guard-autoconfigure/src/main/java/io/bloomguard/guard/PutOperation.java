package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;

/**
 * A resolved {@code @BloomPut}: the filter and how to get the key(s).
 *
 * @param filter      the filter written to
 * @param key         how to compute the key from the arguments and, maybe, the result
 * @param description {@code Type.method} for logs and errors
 * @param writeScope  the transaction a write keyed on its result runs in, so that the key reaches a shared
 *                    filter before the commit; {@code null} to run it as it is
 */
record PutOperation(NamedBloomFilter filter, KeyExpression key, String description,
        WriteTransactions.@Nullable WriteScope writeScope) {
}
