package io.bloomguard.guard;

import io.bloomguard.registry.UnkeyedWrites;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One call of a {@code @BloomPut} method, seen from inside its transaction: its arguments and keys, the phase of its
 * transaction, and what it returns ({@link ResultKind}), which say when its keys are put.
 *
 * <ul>
 * <li>Keys the arguments hold before the call are put before it ({@link #putKeysKnownBeforeCall}).</li>
 * <li>Keys taken from the result are put as the method returns, inside its transaction. Those still unknown then (a
 * column the database fills in at the flush) are put just before the commit, or else right after it
 * ({@link LateKeys}).</li>
 * <li>A {@code Mono} or {@code Flux} is keyed as it delivers ({@link ReactiveKeyedWrite}), a {@code CompletionStage}
 * when it completes.</li>
 * </ul>
 *
 * <p>Where its row may be visible before its key is in — no transaction, a transaction suspended for another that
 * commits first, a key known only after the commit, a promise whose work commits elsewhere — the write counts as
 * {@linkplain UnkeyedWrites unkeyed} until the put. A call that ends before it gives its key (it throws, its
 * promise fails) puts a key its arguments hold by now; otherwise, if its transaction commits all the same, or what it
 * wrote committed apart from it (no transaction, or one suspended for another), the row may lack its key and the filter
 * is marked as missing one ({@link PutOperation#keyUnknown}); so it is for a key still {@code null} once written.
 */
final class KeyedWrite {

    /** Where the write stands against its transaction, as far as its keys go. */
    enum Phase {
        /** Not begun: the keys were known before the call, and are in. */
        BEFORE_CALL,
        /** No transaction to wait for: each statement commits at once. */
        NO_TRANSACTION,
        /** Running in a transaction that has not begun to commit. */
        IN_TRANSACTION,
        /** Its transaction is committing: keys known by now are put before the commit. */
        BEFORE_COMMIT,
        /** Its transaction has committed: keys known only now are put as a last resort. */
        AFTER_COMMIT
    }

    private static final String FIX = "Let the failure roll the transaction back, or compute the @BloomPut key from"
            + " values known before the call";

    private static final String NULL_KEY_FIX = "Key the @BloomPut on what holds the key once written (#result.id"
            + " rather than an argument the write does not fill in, the saved entity rather than a copy); if the key"
            + " may be missing (an optional attribute), say so: key = \"#user.email != null ? {#user.email} : {}\"";

    private final PutOperation put;
    private final Object[] args;
    private final WriteWarnings warnings;
    private volatile Phase phase = Phase.BEFORE_CALL;
    private UnkeyedWrites.@Nullable Write unkeyed;
    /** Whether the write stays unkeyed until its transaction ends, which then ends it. */
    private boolean keyedAtCommit;
    private volatile boolean keyedBeforeCommit;
    /** Keys the arguments held before the call, put then, and the filter's build epoch before that put. */
    private @Nullable Object keysBeforeCall;
    private long epochBeforeCall;
    /** Whether its transaction was suspended for another during the call, which may have committed rows of its own. */
    private volatile boolean suspended;

    KeyedWrite(PutOperation put, Object[] args, WriteWarnings warnings) {
        this.put = put;
        this.args = args;
        this.warnings = warnings;
    }

    PutOperation put() {
        return put;
    }

    Object[] args() {
        return args;
    }

    /**
     * Puts the keys if the arguments hold every one of them before the call, and says whether it did: they are in
     * before anything is written. A key not known yet, e.g. {@code #user.id} (or {@code #users.![id]}) before the
     * database assigns it, is read again once the method returns.
     */
    boolean putKeysKnownBeforeCall() {
        if (put.key().usesResult()) {
            return false;
        }
        Object known = put.keysOf(args, null);
        if (known == null || LateKeys.anyNull(known)) {
            return false;
        }
        epochBeforeCall = put.buildEpoch();
        put.putKeys(known);
        keysBeforeCall = known;
        return true;
    }

    /** The method is about to write: unkeyed from now on, visible at once where its row may be. */
    void begin() {
        UnkeyedWrites.Write write = put.filter().unkeyedWrites().begin();
        unkeyed = write;
        boolean inTransaction = ActiveTransactions.onSuspend(() -> {
            suspended = true;
            write.visible();
        });
        phase = inTransaction ? Phase.IN_TRANSACTION : Phase.NO_TRANSACTION;
        if (!inTransaction || put.kind().deferred()) {
            // Each statement commits at once; or the work runs elsewhere (a future's, a Mono.just of a save), in a
            // transaction of its own that may commit before this call returns.
            write.visible();
        }
    }

    /**
     * The method returned {@code result}: its keys are put, now or as its promise delivers.
     *
     * @return what the caller gets: {@code result}, or a promise that delivers once the keys are in
     */
    @Nullable Object returned(@Nullable Object result) {
        switch (put.kind()) {
            case NOW -> keyedAtCommit = putNow(result);
            case MONO, FLUX -> {
                if (ReactiveKeyedWrite.isPending(result)) {
                    return new ReactiveKeyedWrite(this).keyedOnDelivery(result);
                }
                if (result != null) {
                    new ReactiveKeyedWrite(this).keyedNow(result); // a Mono.just(...): written when called
                }
            }
            case COMPLETION_STAGE -> {
                if (result != null) {
                    return keyedWhenComplete((CompletionStage<?>) result);
                }
            }
            default -> putUnwatchable(result);
        }
        return result;
    }

    /**
     * The method threw, seen inside its transaction (if any) on the calling thread. Does not throw: the caller
     * rethrows the method's own exception.
     */
    void threw(Throwable failure) {
        if (putKeyFromArguments()) {
            return;
        }
        String what = "it threw " + failure.getClass().getName() + " before it gave its key";
        if (suspended || phase == Phase.NO_TRANSACTION && !put.kind().reactive()) {
            // What it wrote committed already, whatever becomes of its own transaction (a reactive one wrote nothing:
            // its publisher was never returned, so never subscribed to).
            put.keyUnknown(what + (suspended ? ", after running work in a transaction of its own (REQUIRES_NEW,"
                    + " NOT_SUPPORTED) that may have committed rows" : ", with no transaction to roll back what it may"
                    + " have written"), "Make the method @Transactional and let nothing in it commit on its own, or"
                    + " compute the @BloomPut key from values known before the call");
            return;
        }
        ActiveTransactions.unlessRolledBack(() -> committedWithoutKey(what));
    }

    /**
     * A call whose keys were put before it has returned. With no transaction its statements have committed by now:
     * the keys are put again if a rebuild began since their put, whose read of the key source may have come before
     * the rows (in a transaction, its commit does that: {@link KeysPutInTransaction}).
     */
    void returnedWithKeysPutBefore() {
        Object before = keysBeforeCall;
        if (before != null && !ActiveTransactions.active() && put.rebuiltSince(epochBeforeCall)) {
            put.putKeys(before);
        }
    }

    /** The call is over: the write is no longer unkeyed, unless its transaction's end says so. */
    void end() {
        UnkeyedWrites.Write write = unkeyed;
        if (write != null && !keyedAtCommit) {
            write.end();
        }
    }

    /**
     * Puts the key of a write keyed on its arguments if they hold it by now (an id the insert assigned before the
     * failure), and says whether it did. A key from the result is never known after a failure.
     */
    boolean putKeyFromArguments() {
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
    void committedWithoutKey(String what) {
        put.keyUnknown(what + ", and the transaction it wrote in committed all the same", FIX);
    }

    /**
     * Puts the key(s) of a method that returned what it wrote; a key still {@code null} (or an element of a collection
     * of keys) is put at the commit, as soon as the database has filled it in.
     *
     * @return whether the write stays unkeyed until its transaction ends
     */
    private boolean putNow(@Nullable Object result) {
        boolean inTransaction = phase != Phase.NO_TRANSACTION;
        if (!inTransaction && put.sharedFilter()) {
            warnings.outsideTransaction(put);
        }
        LateKeys late = LateKeys.of(put, args, result, put.putFromResult(args, result));
        if (late == null) {
            return false;
        }
        UnkeyedWrites.Write write = unkeyed;
        boolean atCommit = inTransaction && write != null && ActiveTransactions.atCommit(
                () -> {
                    phase = Phase.BEFORE_COMMIT;
                    late.putKnown();
                    if (late.complete()) {
                        keyedBeforeCommit = true;
                    }
                    else {
                        write.visible(); // known only once committed: the row may be read before the key is in
                    }
                },
                () -> {
                    phase = Phase.AFTER_COMMIT;
                    if (!keyedBeforeCommit) {
                        putAfterCommit(late);
                    }
                },
                write::end);
        if (!atCommit) {
            keysStillUnknown(late);
        }
        return atCommit;
    }

    private void putAfterCommit(LateKeys late) {
        if (late.putKnown() > 0 && put.sharedFilter()) {
            warnings.keyedAfterCommit(put);
        }
        if (!late.complete()) {
            keysStillUnknown(late);
        }
    }

    /**
     * Keys still null when nothing will give them one after this phase (the method's return with no transaction to
     * wait for, or its transaction's commit) belong to records that exist: such a key may be a value the expression
     * does not read (a copy, a column not read back), and the record would be rejected, so the filter is marked. A key
     * that may legitimately be missing says so with an empty collection, which puts nothing.
     */
    private void keysStillUnknown(LateKeys late) {
        String when = (phase == Phase.AFTER_COMMIT) ? "after its transaction committed"
                : "when the method returned, with no transaction whose commit bloom-guard can wait for";
        if (late.whole()) {
            put.keyUnknown("its key was still null " + when, NULL_KEY_FIX);
        }
        else {
            late.reportElementsLost(when);
        }
    }

    /** A plain {@code Future}: a key from the arguments still unknown when the method returns cannot be watched. */
    private void putUnwatchable(@Nullable Object result) {
        Object filledIn = put.keysOf(args, null);
        if (filledIn != null) {
            put.putKeys(filledIn);
        }
        else if (result != null) {
            put.keyUnknown("its key was still unknown when it returned a " + result.getClass().getSimpleName()
                    + ", whose value bloom-guard cannot watch",
                    "Return a CompletableFuture, a Mono or a Flux, or compute the key before the call");
        }
    }

    /**
     * A stage that completes as {@code stage} does, once its keys are put. Its work runs elsewhere, in a transaction
     * of its own if any, which has committed by the time the stage completes: the write counts as unkeyed from the call
     * until the put, and whatever waits on the result finds the key in. A new stage rather than
     * {@code stage.whenComplete(...)}, whose failures would reach callers wrapped in a {@code CompletionException}.
     * Cancelling it is not passed on to the method's own: a {@code CompletableFuture}'s work goes on when it is
     * cancelled (it cannot be interrupted), and would then no longer deliver its key.
     */
    private CompletableFuture<Object> keyedWhenComplete(CompletionStage<?> stage) {
        UnkeyedWrites.Write write = put.filter().unkeyedWrites().beginDetached();
        CompletableFuture<Object> watched = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            Throwable outcome = failure;
            try {
                if (failure == null) {
                    put.putFromResult(args, value);
                }
                else {
                    putKeyFromArguments();
                }
            }
            catch (Throwable ex) { // a failed put under on-add-failure: fail or on-backend-failure: throw
                outcome = ex;
            }
            finally {
                write.end(); // before completing: whoever waits on the stage finds the key in
            }
            if (outcome != null) {
                watched.completeExceptionally(outcome);
            }
            else {
                watched.complete(value);
            }
        });
        return watched;
    }
}
