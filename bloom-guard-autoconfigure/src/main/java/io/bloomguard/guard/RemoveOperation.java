package io.bloomguard.guard;

import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@code @BloomRemove}: which counting filter, which key(s) a delete names, and what proves that it deleted their
 * rows ({@link DeleteProof}). A remove that is left out keeps a key that is gone (a false positive, one extra query);
 * a remove of a key whose row is still there takes counts that belong to other keys and may make a record that exists
 * "not found". So whatever is in doubt is left out, logged, and the delete goes on.
 */
final class RemoveOperation {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final NamedBloomFilter filter;
    private final KeyExpression key;
    private final DeleteProof proof;
    private final String description;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    RemoveOperation(NamedBloomFilter filter, KeyExpression key, DeleteProof proof, String description) {
        this.filter = filter;
        this.key = key;
        this.proof = proof;
        this.description = description;
    }

    NamedBloomFilter filter() {
        return filter;
    }

    /** {@code Type.method}. */
    String description() {
        return description;
    }

    /**
     * Removes the keys whose rows a delete that returned {@code result} provably deleted, once its transaction has
     * committed, unless a savepoint taken before the delete is rolled back to; at once when there is no transaction
     * (each statement committed as it ran); never when the transaction cannot be watched.
     */
    void removeOnceCommitted(Object[] args, @Nullable Object result, long epoch) {
        List<Object> keys = provenKeys(args, result);
        if (!keys.isEmpty()) {
            switch (ActiveTransactions.scope()) {
                case NONE -> removeKeys(keys, epoch);
                case SYNCHRONIZED -> ActiveTransactions.afterCommitUnlessUndone(() -> removeKeys(keys, epoch));
                case UNSYNCHRONIZED -> leftInUnwatchedTransaction();
            }
        }
    }

    /**
     * The distinct keys of a delete that returned {@code result}, if it proved that it deleted the row of every one
     * of them; otherwise none. A count that proves fewer rows than there are keys does not say which went.
     */
    private List<Object> provenKeys(Object[] args, @Nullable Object result) {
        long rows;
        try {
            rows = proof.rowsDeleted(args, result);
        }
        catch (RuntimeException ex) {
            logger.warn(description + ": its @BloomRemove condition failed (" + ex.getMessage() + "), so the deleted"
                    + " key stays in filter '" + filter.name() + "' (a false positive until the next rebuild). Fix the"
                    + " condition.", ex);
            return List.of();
        }
        if (rows <= 0) {
            return List.of(); // nothing deleted: the key's counts are another put's, or other keys'
        }
        Object keys;
        try {
            keys = key.evaluate(args, result);
        }
        catch (RuntimeException ex) {
            logger.warn(description + ": its @BloomRemove key expression failed (" + ex.getMessage() + "), so the"
                    + " deleted key stays in filter '" + filter.name() + "' (a false positive until the next"
                    + " rebuild). Fix the key expression.", ex);
            return List.of();
        }
        List<Object> distinct = distinct(keys);
        if (distinct.size() > rows) {
            warnOnce("fewer rows than keys", description + " names " + distinct.size() + " keys but its result proves"
                    + " only " + rows + " deleted row(s), which does not say whose rows went: none of its keys is"
                    + " removed from filter '" + filter.name() + "', and those deleted stay in as false positives"
                    + " until the next rebuild. Return the deleted entities and key on them (key = \"#result.![id]\"),"
                    + " or delete one key per call.");
            return List.of();
        }
        return distinct;
    }

    /**
     * A delete inside a transaction whose synchronization is off (an after-completion callback of another
     * transaction, say): bloom-guard cannot learn whether it commits, so it removes nothing.
     */
    private void leftInUnwatchedTransaction() {
        warnOnce("unsynchronized", description + " deleted inside a transaction whose synchronization is off, so"
                + " bloom-guard cannot learn whether the delete commits: its key stays in filter '" + filter.name()
                + "' as a false positive until the next rebuild. Delete in a transaction with synchronization on"
                + " (the transaction managers' default); in an after-completion callback, such as a"
                + " @TransactionalEventListener, give the delete a transaction of its own (REQUIRES_NEW).");
    }

    /**
     * The filter's build epoch before the delete runs: its keys are removed only from a generation that was live
     * then ({@link NamedBloomFilter#remove(Object, long)}).
     */
    long epochBeforeDelete() {
        return (filter.backend() instanceof RebuildableBloomFilter rebuildable) ? rebuildable.buildEpoch() : 0L;
    }

    /** Removes each of {@code keys} from the generation live when the delete began, if it still is. */
    private void removeKeys(List<Object> keys, long epoch) {
        for (Object deleted : keys) {
            try {
                filter.remove(deleted, epoch);
            }
            catch (RuntimeException ex) {
                logger.warn(description + ": could not remove a deleted key from filter '" + filter.name() + "' ("
                        + ex.getMessage() + "); it stays in as a false positive until the next rebuild.", ex);
            }
        }
    }

    /** A key, or the elements of a collection or array of keys; {@code null}s left out, each key once. */
    private static List<Object> distinct(@Nullable Object keys) {
        Set<Object> distinct = new LinkedHashSet<>();
        if (keys instanceof Iterable<?> iterable) {
            for (Object element : iterable) {
                distinct.add(element);
            }
        }
        else if (keys != null && keys.getClass().isArray()) {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                distinct.add(Array.get(keys, i));
            }
        }
        else {
            distinct.add(keys);
        }
        distinct.remove(null);
        return new ArrayList<>(distinct);
    }

    private void warnOnce(String problem, String message) {
        if (warned.add(problem)) {
            logger.warn(message);
        }
    }
}
