package io.bloomguard.guard;

import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts the keys of a {@code @BloomPut}, whichever advice does it: the guard's own, or the one inside the
 * method's transaction ({@link PutBeforeCommitInterceptor}).
 *
 * <p>A write whose key cannot reach the filter (its key expression fails, or the filter refuses the key)
 * stops the filter from rejecting, and does not fail the write: the record exists, so the filter is what is
 * now wrong. Only under {@code on-backend-failure: throw} is a failed put rethrown, and then, thrown inside the
 * method's transaction, it usually rolls the write back.
 */
final class KeyPuts {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private KeyPuts() {
    }

    /**
     * Puts the key(s) a write that has returned {@code result} wrote, and returns them: {@code null} when there
     * were none, or when the key expression failed (which is logged, and stops the filter from rejecting).
     */
    static @Nullable Object putFromResult(PutOperation put, Object[] args, @Nullable Object result) {
        Object keys;
        try {
            keys = put.key().evaluate(args, result);
        }
        catch (RuntimeException ex) {
            if (!put.key().usesResult()) {
                // The method returned, so it wrote, whatever it returned (a void method returns null).
                keyLost(put, "its key expression failed on the arguments after the method returned",
                        "Fix the @BloomPut key expression (?. navigates a null safely)", ex);
            }
            else if (result != null) {
                keyLost(put, "its key expression failed on the method's result", "Fix the @BloomPut key expression", ex);
            }
            // else no result, nothing written to key
            return null;
        }
        putKeys(put, keys);
        return keys;
    }

    /** The key(s) {@link #putFromResult} would put, or {@code null} if the key expression fails. */
    static @Nullable Object keysOf(PutOperation put, Object[] args, @Nullable Object result) {
        try {
            return put.key().evaluate(args, result);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /** Whether the key expression evaluates, to {@code null}: no key to put, as opposed to a failed expression. */
    static boolean yieldsNull(PutOperation put, Object[] args, @Nullable Object result) {
        try {
            return put.key().evaluate(args, result) == null;
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** Puts a key, or each element of a collection or array of keys. */
    static void putKeys(PutOperation put, @Nullable Object keys) {
        if (keys == null) {
            return;
        }
        NamedBloomFilter filter = put.filter();
        try {
            if (keys instanceof Iterable<?> || keys.getClass().isArray()) {
                filter.putAll(nonNullKeys(keys));
            }
            else {
                filter.put(keys);
            }
        }
        catch (RuntimeException ex) {
            filter.counters().backendError();
            keyLost(put, "the filter could not add its key", (ex instanceof IllegalArgumentException)
                    ? "Fix the @BloomPut key expression so that it yields a whole number, String, UUID or enum" : "", ex);
            if (filter.spec().onBackendFailure() == BackendFailurePolicy.THROW) {
                throw ex;
            }
        }
    }

    /** A record may be written without its key, which cannot be computed: as {@link #keyLost}, with no exception. */
    static void keyUnknown(PutOperation put, String why, String fix) {
        keyLost(put, why, fix, null);
    }

    /**
     * A record was (or may have been) written without its key reaching the filter, which would reject it from
     * now on: the filter stops rejecting until it holds every key again, and the log says why.
     */
    private static void keyLost(PutOperation put, String why, String fix, @Nullable RuntimeException ex) {
        NamedBloomFilter filter = put.filter();
        String missing = "Filter '" + filter.name() + "' is missing a key written by " + put.description() + ": "
                + why + (ex != null ? " (" + ex.getMessage() + ")." : ".");
        boolean recovers = filter.markIncomplete(missing);
        logger.error(missing + (recovers
                ? " No instance rejects anything with it until it has been rebuilt from its key source, which follows."
                : " It lets every call through from now on, until the application restarts.")
                + (fix.isEmpty() ? "" : " " + fix), ex);
    }

    /** The keys of a collection or array result, nulls left out: one batch for the filter. */
    private static List<Object> nonNullKeys(Object keys) {
        List<Object> batch = new ArrayList<>();
        if (keys instanceof Iterable<?> iterable) {
            for (Object key : iterable) {
                if (key != null) {
                    batch.add(key);
                }
            }
        }
        else {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                Object key = Array.get(keys, i);
                if (key != null) {
                    batch.add(key);
                }
            }
        }
        return batch;
    }
}
