package io.bloomguard.guard;

import io.bloomguard.core.CommitWait;
import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the puts inside one transaction owe at its commit: the wait a leased near copy asks of writers
 * ({@link io.bloomguard.core.CommitWait}, the longest any put owes, waited once before the commit), and the keys put, by
 * filter and by the {@linkplain RebuildableBloomFilter#buildEpoch() build
 * epoch} each was put at. A rebuild that begins while the transaction is open reads a key source that cannot show its
 * rows, and the generation it swaps in lacks keys that reached only the one before: once the transaction has
 * committed, the keys of each filter whose epoch moved since their put are put again (one question to a shared
 * store per filter, not per key). A put made while a rebuild runs reaches the generation being built too; put again,
 * it only costs a write.
 *
 * <p>One per transaction, bound to it as a resource and unbound while it is suspended, so that a
 * {@code REQUIRES_NEW} inside it keeps keys of its own. Loaded only where spring-tx is present.
 *
 * <p>Usage: {@code long epoch = put.buildEpoch(); filter.put(key); KeysPutInTransaction.add(filter, List.of(key), epoch);}
 */
final class KeysPutInTransaction implements TransactionSynchronization {

    /** The resource key; a private object, so nothing else can bind or find it. */
    private static final Object RESOURCE = new Object();

    /** Filter → epoch → keys put at it; filters by identity, each a bean. */
    private final Map<NamedBloomFilter, Map<Long, List<Object>>> keys = new IdentityHashMap<>();
    private boolean committed;
    /** The {@code System.nanoTime()} before which it must not commit; 0 when no put owes a wait. */
    private long notBefore;

    private KeysPutInTransaction() {
    }

    /**
     * Records keys put at {@code epoch} in the transaction active on this thread, if a synchronized one is and has not
     * committed yet (a key put after the commit reads a row any later rebuild sees).
     */
    static void add(NamedBloomFilter filter, List<?> put, long epoch) {
        if (!(filter.backend() instanceof RebuildableBloomFilter) || put.isEmpty()
                || !TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return;
        }
        KeysPutInTransaction current = bound();
        if (!current.committed) {
            current.keys.computeIfAbsent(filter, unused -> new LinkedHashMap<>())
                    .computeIfAbsent(epoch, unused -> new ArrayList<>()).addAll(put);
        }
    }

    /**
     * Defers a put's wait to the commit of the transaction active on this thread ({@link io.bloomguard.core.CommitWait}).
     *
     * @return {@code false} when no synchronized transaction is active, or it has committed: the put waits now
     */
    static boolean deferWait(long notBefore) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        KeysPutInTransaction current = bound();
        if (current.committed) {
            return false;
        }
        if (current.notBefore == 0 || notBefore - current.notBefore > 0) {
            current.notBefore = notBefore;
        }
        return true;
    }

    private static KeysPutInTransaction bound() {
        KeysPutInTransaction current = (KeysPutInTransaction) TransactionSynchronizationManager.getResource(RESOURCE);
        if (current == null) {
            current = new KeysPutInTransaction();
            TransactionSynchronizationManager.bindResource(RESOURCE, current);
            TransactionSynchronizationManager.registerSynchronization(current);
        }
        return current;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        awaitLeases();
    }

    /**
     * Also here: a put made in another synchronization's {@code beforeCommit} registers this one too late for that
     * phase, but this phase runs before the commit too. (On a rollback it waits for nothing that needed it.)
     */
    @Override
    public void beforeCompletion() {
        awaitLeases();
    }

    private void awaitLeases() {
        if (notBefore != 0) {
            CommitWait.waitUntil(notBefore);
            notBefore = 0;
        }
    }

    @Override
    public void suspend() {
        TransactionSynchronizationManager.unbindResource(RESOURCE);
    }

    @Override
    public void resume() {
        TransactionSynchronizationManager.bindResource(RESOURCE, this);
    }

    @Override
    public void afterCommit() {
        committed = true;
        keys.forEach((filter, byEpoch) -> {
            RebuildableBloomFilter backend = (RebuildableBloomFilter) filter.backend();
            for (Map.Entry<Long, List<Object>> atEpoch : byEpoch.entrySet()) {
                if (backend.rebuiltSince(atEpoch.getKey())) {
                    putAgain(filter, atEpoch.getValue());
                }
            }
        });
    }

    @Override
    public void afterCompletion(int status) {
        TransactionSynchronizationManager.unbindResourceIfPossible(RESOURCE);
    }

    /**
     * Puts the keys again through the filter, which buffers or marks what it cannot store as any put does. Never
     * throws: the transaction has committed, and the caller's call succeeded.
     */
    private static void putAgain(NamedBloomFilter filter, List<Object> keys) {
        try {
            filter.putAll(keys);
        }
        catch (RuntimeException ex) {
            filter.counters().backendError();
            filter.markIncomplete("Filter '" + filter.name() + "': " + keys.size() + " keys put before a rebuild"
                    + " began, in a transaction that committed after it, could not be put again: " + ex.getMessage());
        }
    }
}
