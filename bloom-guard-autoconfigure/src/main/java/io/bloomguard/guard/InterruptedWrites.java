package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code @BloomPut} write that ended before it gave its key: the method threw, or its {@code Mono} or {@code Flux}
 * failed or was cancelled. Whatever it wrote may still be committed, and its row would then have no key in the
 * filter, which would reject it from then on. Seen from the advice inside the method's transaction
 * ({@link PutBeforeCommitInterceptor}), which is where it can be told whether a transaction will undo the write:
 * <ul>
 * <li>a key from the arguments that is known by now is put: at worst a false positive, if nothing was written;</li>
 * <li>otherwise, in a transaction, the outcome waits for its end. Rolled back (what an unchecked exception and a
 * cancelled reactive transaction do), nothing was written. Committed all the same (a checked exception,
 * {@code noRollbackFor}, a caller that caught the failure and went on in the transaction), the row may be there
 * without its key: the filter is marked as missing a key ({@link PutOperation#keyUnknown}) and stops rejecting;</li>
 * <li>with no transaction, a cancelled {@code Mono} or {@code Flux} may go on writing in the database, so the filter
 * is marked at once; a failure is taken as a write that did not happen, as the guard cannot tell the difference
 * and most failed writes wrote nothing.</li>
 * </ul>
 * A {@code Flux} element that arrives with a {@code null} key is a row whose key is lost the same way, once its
 * transaction commits (at once without one).
 */
final class InterruptedWrites {

    private static final String FIX = "Let the failure roll the transaction back, or compute the @BloomPut key from"
            + " values known before the call";

    private static final String FLUX_FIX = "Key the @BloomPut on a value known before the insert, or deliver what"
            + " the database holds (read the rows back)";

    private InterruptedWrites() {
    }

    /**
     * A call that threw, seen inside its transaction (if any) on the calling thread. Does not throw: the caller
     * rethrows the method's own exception.
     */
    static void threw(PutOperation put, Object[] args, Throwable failure) {
        if (putKeyFromArguments(put, args)) {
            return;
        }
        ActiveTransactions.unlessRolledBack(
                () -> committedWithoutKey(put, "it threw " + failure.getClass().getName() + " before it gave its key"));
    }

    /**
     * Puts the key of a write keyed on its arguments if they hold it by now (an id the insert assigned before
     * the failure), and says whether it did. A key from the result is never known after a failure.
     */
    static boolean putKeyFromArguments(PutOperation put, Object[] args) {
        if (put.key().usesResult()) {
            return false;
        }
        Object known = put.keysOf(args, null);
        if (known == null) {
            return false;
        }
        try {
            put.putKeys(known);
        }
        catch (RuntimeException ex) {
            // on-backend-failure: throw, on a path that rethrows the method's own failure: already logged and marked
        }
        return true;
    }

    /** The transaction a write that ended without its key ran in has committed: its row may lack the key. */
    private static void committedWithoutKey(PutOperation put, String what) {
        put.keyUnknown(what + ", and the transaction it wrote in committed all the same", FIX);
    }

    /** A cancelled reactive write with no transaction to roll back whatever it had begun to write. */
    private static void cancelledOutsideTransaction(PutOperation put, String publisher) {
        put.keyUnknown("its " + publisher + " was cancelled before it gave its key, with no transaction to roll"
                + " back what it may have begun to write", "Make the write @Transactional (a cancelled reactive"
                + " transaction rolls back), or compute the @BloomPut key from values known before the call");
    }

    /**
     * One subscription to a reactive write, watched from inside its transaction: told whether it runs in one, how
     * it ended, and how the transaction ended.
     */
    static final class Subscription {

        private final PutOperation put;
        private final Object[] args;
        private final String publisher;
        private volatile boolean inTransaction;
        private final AtomicBoolean over = new AtomicBoolean();
        private final AtomicInteger deliveredWithoutKey = new AtomicInteger();
        private volatile @Nullable String endedWithoutKey;

        Subscription(PutOperation put, Object[] args, String publisher) {
            this.put = put;
            this.args = args;
            this.publisher = publisher;
        }

        /** Whether the write runs in a transaction, which will then report its end. */
        void inTransaction(boolean inTransaction) {
            this.inTransaction = inTransaction;
        }

        /** The write delivered what it had to: whatever comes after is no interruption. */
        void settled() {
            over.set(true);
        }

        /** The write failed before it settled. */
        void failed() {
            if (over.compareAndSet(false, true)) {
                endedWithoutKey(false);
            }
        }

        /** The write was cancelled before it settled. */
        void cancelled() {
            if (over.compareAndSet(false, true)) {
                endedWithoutKey(true);
            }
        }

        private void endedWithoutKey(boolean cancelled) {
            if (putKeyFromArguments(put, args)) {
                return;
            }
            if (inTransaction) {
                endedWithoutKey = "its " + publisher + (cancelled ? " was cancelled" : " failed") + " before it gave its key";
            }
            else if (cancelled) {
                cancelledOutsideTransaction(put, publisher);
            }
        }

        /**
         * An element of the write's {@code Flux} came with a {@code null} key, which nothing will fill in for it (a
         * column the database fills in, that the element does not show): its row would lack its key. With no
         * transaction that row is committed already; in one, it is once the transaction commits.
         */
        void deliveredWithoutKey() {
            if (deliveredWithoutKey.getAndIncrement() == 0 && !inTransaction) {
                put.keyUnknown("an element of its Flux had a null key, with no transaction to roll back its row",
                        FLUX_FIX);
            }
        }

        /** The transaction the write ran in has ended. */
        void transactionEnded(boolean committed) {
            String what = endedWithoutKey;
            if (committed && what != null) {
                committedWithoutKey(put, what);
            }
            int withoutKey = deliveredWithoutKey.get();
            if (committed && withoutKey > 0) {
                put.keyUnknown(withoutKey + " element(s) of its Flux had a null key, and the transaction they were"
                        + " written in committed", FLUX_FIX);
            }
        }
    }
}
