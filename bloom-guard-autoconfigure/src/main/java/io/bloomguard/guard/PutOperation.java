package io.bloomguard.guard;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * A resolved {@code @BloomPut}: the filter and how to get the key(s), and the puts themselves.
 *
 * <p>A write whose key cannot reach the filter (its key expression fails, or the filter refuses the key) does not
 * fail: the record exists, so the filter is what is now wrong, and it stops rejecting. A put fails the write only
 * under {@code on-add-failure: fail} (the store could not be reached) or {@code on-backend-failure: throw}; thrown
 * inside the method's transaction, it rolls the write back.
 *
 * @param filter      the filter written to
 * @param key         how to compute the key from the arguments and, maybe, the result
 * @param description {@code Type.method} for logs and errors
 * @param kind        whether the method returns what it wrote or a promise of it, and which
 */
record PutOperation(NamedBloomFilter filter, KeyExpression key, String description, ResultKind kind) {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private static final LostKeyReports lostKeyReports = new LostKeyReports();

    /** Whether other instances read the filter too, so that only a put before the commit keeps them right. */
    boolean sharedFilter() {
        return filter.shared().isPresent();
    }

    /** The filter's build epoch as this instance last saw it, read before a put: see {@link #rebuiltSince}. */
    long buildEpoch() {
        return (filter.backend() instanceof RebuildableBloomFilter rebuildable) ? rebuildable.buildEpoch() : 0L;
    }

    /**
     * Whether a rebuild began (or swapped in) since {@code epoch}: a key put then, whose row committed only after, may
     * be missing from the generation now live, and is put again.
     */
    boolean rebuiltSince(long epoch) {
        return filter.backend() instanceof RebuildableBloomFilter rebuildable && rebuildable.rebuiltSince(epoch);
    }

    /** The key(s) a write that returned {@code result} wrote, or {@code null} if the key expression fails. */
    @Nullable Object keysOf(Object[] args, @Nullable Object result) {
        try {
            return key.evaluate(args, result);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /**
     * What one evaluation of the key expression gave, once the method returned: the keys put, none yet (a
     * {@code null} key, which the database may still fill in), or a failed expression.
     *
     * @param keys   the key(s) put, or {@code null}
     * @param failed whether the expression failed (logged by then, and the filter stops rejecting)
     */
    record Evaluated(@Nullable Object keys, boolean failed) {

        static final Evaluated FAILED = new Evaluated(null, true);
        static final Evaluated NULL_KEY = new Evaluated(null, false);

        /** Whether the expression evaluated to {@code null}: no key yet, as opposed to a failed expression. */
        boolean nullKey() {
            return keys == null && !failed;
        }
    }

    /**
     * Puts the key(s) a write that has returned {@code result} wrote, evaluating the key expression once, and says
     * what it gave: the keys, a {@code null} key, or a failure (which is logged, and stops the filter from rejecting).
     */
    Evaluated putFromResult(Object[] args, @Nullable Object result) {
        Object keys;
        try {
            keys = key.evaluate(args, result);
        }
        catch (RuntimeException ex) {
            if (!key.usesResult()) {
                // The method returned, so it wrote, whatever it returned (a void method returns null).
                keyLost("its key expression failed on the arguments after the method returned",
                        "Fix the @BloomPut key expression (?. navigates a null safely)", ex);
            }
            else if (result != null) {
                keyLost("its key expression failed on the method's result", "Fix the @BloomPut key expression", ex);
            }
            // else no result, nothing written to key
            return Evaluated.FAILED;
        }
        if (keys == null) {
            return Evaluated.NULL_KEY;
        }
        putKeys(keys);
        return new Evaluated(keys, false);
    }

    /** Puts a key, or each element of a collection or array of keys. */
    void putKeys(@Nullable Object keys) {
        if (keys == null) {
            return;
        }
        try {
            long epoch = buildEpoch();
            List<Object> batch = (keys instanceof Iterable<?> || keys.getClass().isArray()) ? nonNullKeys(keys)
                    : List.of(keys);
            if (batch.size() == 1) {
                filter.put(batch.get(0));
            }
            else {
                filter.putAll(batch);
            }
            if (ActiveTransactions.springTxPresent()) {
                KeysPutInTransaction.add(filter, batch, epoch); // put again at the commit if a rebuild began since
            }
        }
        catch (RuntimeException ex) {
            filter.counters().backendError();
            boolean refused = ex instanceof IllegalArgumentException;
            String why = "the filter could not add its key";
            String fix = refused ? "Fix the @BloomPut key expression so that it yields a whole number, String, UUID or enum" : "";
            boolean failsTheWrite = filter.spec().guard().onBackendFailure() == BackendFailurePolicy.THROW
                    || !refused && filter.spec().writes().onAddFailure() == AddFailurePolicy.FAIL;
            if (failsTheWrite && ActiveTransactions.active()) {
                // The transaction rolls back with the write: nothing is missing, unless it commits all the same.
                ActiveTransactions.unlessRolledBack(() -> keyLost(why + ", and its transaction committed all the same",
                        fix, ex));
            }
            else {
                keyLost(why, fix, ex);
            }
            if (failsTheWrite) {
                throw ex;
            }
        }
    }

    /** A record may be written without its key, which cannot be computed: as {@link #keyLost}, with no exception. */
    void keyUnknown(String why, String fix) {
        keyLost(why, fix, null);
    }

    /**
     * A record was (or may have been) written without its key reaching the filter, which would reject it from
     * now on: the filter stops rejecting until it holds every key again, and the log says why.
     */
    private void keyLost(String why, String fix, @Nullable RuntimeException ex) {
        String missing = "Filter '" + filter.name() + "' is missing a key written by " + description + ": "
                + why + (ex != null ? " (" + ex.getMessage() + ")." : ".");
        boolean recovers = markIncomplete(missing);
        long unreported = lostKeyReports.reportNow(description);
        if (unreported < 0) {
            logger.debug(missing, ex);
            return;
        }
        logger.error(missing + (unreported > 0 ? " (" + unreported + " more lost the same way in the last minute.)" : "")
                + (recovers
                ? " It rejects nothing until it has been rebuilt from its key source, which follows on its own."
                : " It lets every call through from now on, until the application restarts (it has no key source to"
                        + " rebuild from).")
                + (fix.isEmpty() ? "" : " " + fix), ex);
    }

    /**
     * Marks the filter at once, so that it stops rejecting; inside a transaction whose end can be watched, it also
     * holds it until the end and marks it again then: a rebuild that reads before the commit cannot see the row.
     */
    private boolean markIncomplete(String missing) {
        if (ActiveTransactions.scope() != ActiveTransactions.Scope.SYNCHRONIZED) {
            return filter.markIncomplete(missing);
        }
        Runnable ended = filter.holdIncomplete(missing);
        boolean recovers = filter.markIncomplete(missing);
        if (!ActiveTransactions.atCommit(() -> { }, () -> { }, ended)) {
            ended.run();
        }
        return recovers;
    }

    /** The keys of a collection or array result, nulls left out: one batch for the filter. */
    private static List<Object> nonNullKeys(Object keys) {
        List<Object> batch = new ArrayList<>();
        if (keys instanceof Iterable<?> iterable) {
            for (Object element : iterable) {
                if (element != null) {
                    batch.add(element);
                }
            }
        }
        else {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                Object element = Array.get(keys, i);
                if (element != null) {
                    batch.add(element);
                }
            }
        }
        return batch;
    }
}
