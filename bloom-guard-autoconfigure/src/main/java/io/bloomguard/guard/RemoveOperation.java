package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Array;

/**
 * A {@code @BloomRemove}: which counting filter, and which key(s) the deleting method removes once its transaction
 * has committed. A remove that fails or is left out keeps a key that is gone (a false positive, one extra query),
 * never the reverse, so failures are logged and the delete goes on.
 */
record RemoveOperation(NamedBloomFilter filter, KeyExpression key, String description) {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    /**
     * The key(s) of a delete that returned {@code result}, or {@code null} (logged) when the expression fails: the
     * key then stays in the filter.
     */
    @Nullable Object keysOf(Object[] args, @Nullable Object result) {
        try {
            return key.evaluate(args, result);
        }
        catch (RuntimeException ex) {
            logger.warn(description + ": its @BloomRemove key expression failed (" + ex.getMessage() + "), so the"
                    + " deleted key stays in filter '" + filter.name() + "' (a false positive until the next"
                    + " rebuild). Fix the key expression.", ex);
            return null;
        }
    }

    /** Removes a key, or each element of a collection or array of keys; {@code null}s are skipped. */
    void removeKeys(@Nullable Object keys) {
        if (keys == null) {
            return;
        }
        if (keys instanceof Iterable<?> iterable) {
            for (Object element : iterable) {
                removeOne(element);
            }
        }
        else if (keys.getClass().isArray()) {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                removeOne(Array.get(keys, i));
            }
        }
        else {
            removeOne(keys);
        }
    }

    private void removeOne(@Nullable Object key) {
        if (key == null) {
            return;
        }
        try {
            filter.remove(key);
        }
        catch (RuntimeException ex) {
            logger.warn(description + ": could not remove a deleted key from filter '" + filter.name() + "' ("
                    + ex.getMessage() + "); it stays in as a false positive until the next rebuild.", ex);
        }
    }
}
