package io.bloomguard.guard;

import io.bloomguard.registry.UnkeyedWrites;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Puts the keys of {@code @BloomPut} methods, from inside the method's transaction, so that a key is in the filter
 * before its row is committed; and removes those of {@code @BloomRemove} methods once theirs has committed, if the
 * delete provably deleted their rows ({@link RemoveOperation}).
 *
 * <ul>
 * <li>A key the arguments hold before the call is put before it.</li>
 * <li>A key taken from the result is put as the method returns, inside its transaction. If it is still unknown then
 * (a column the database fills in at the flush), it is put just before the commit, or else right after it; so is
 * each element of a collection of keys that is ({@link LateKeys}).</li>
 * <li>A {@code Mono} or {@code Flux} is keyed as it delivers ({@link ReactivePuts}), a {@code CompletionStage} when it
 * completes ({@link DeferredPuts}).</li>
 * </ul>
 *
 * <p>Where a row may be visible before its key is in — no transaction (each statement commits at once), a transaction
 * suspended for another that commits first, a key known only after the commit — the write counts as
 * {@linkplain UnkeyedWrites unkeyed} until the put: lookups the filter answers "absent" meanwhile wait for it and ask
 * again. No write stops the guard from rejecting other keys. A call that throws before it gives its key is watched
 * to the end of its transaction ({@link InterruptedWrites}).
 *
 * <p>It leaves the transaction as the method declared it: it begins none, and a put that fails under
 * {@code on-add-failure: fail} or {@code on-backend-failure: throw} fails the method, whose transaction then rolls
 * back by its own rules. Placed inside the transaction interceptor by {@link PutBeforeCommitAdvisor} on classes and
 * by a repository proxy post-processor on Spring Data repositories.
 */
public final class PutBeforeCommitInterceptor implements MethodInterceptor {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final BloomOperationSource source;
    private final Function<MethodInvocation, @Nullable Class<?>> targetClass;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    private PutBeforeCommitInterceptor(BloomOperationSource source,
            Function<MethodInvocation, @Nullable Class<?>> targetClass) {
        this.source = source;
        this.targetClass = targetClass;
    }

    /** For the beans of classes, advised as the guard's own advisor advises them. */
    public static PutBeforeCommitInterceptor forClasses(BloomOperationSource source) {
        return new PutBeforeCommitInterceptor(source, BloomGuardInterceptor::targetClass);
    }

    /**
     * For Spring Data repositories, inside the repository's own proxy: the operations are those found for the class
     * of that proxy, which names the user's repository interface, as the guard in front of it finds them.
     */
    public static PutBeforeCommitInterceptor forRepositories(BloomOperationSource source) {
        return new PutBeforeCommitInterceptor(source, invocation -> (invocation instanceof ProxyMethodInvocation proxied)
                ? proxied.getProxy().getClass() : BloomGuardInterceptor.targetClass(invocation));
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        MethodOperations operations = source.operationsFor(invocation.getMethod(), targetClass.apply(invocation));
        if (operations.remove() != null) {
            return removeAfterCommit(operations.remove(), invocation, operations.put());
        }
        return put(operations.put(), invocation);
    }

    /**
     * Runs the delete (and its put, on another filter, if it has one), then removes the keys whose rows it provably
     * deleted once its transaction has committed, unless a savepoint taken before the delete is rolled back to; at once
     * when there is no transaction (each statement committed as it ran); never when the transaction cannot be watched.
     */
    private @Nullable Object removeAfterCommit(RemoveOperation remove, MethodInvocation invocation,
            @Nullable PutOperation put) throws Throwable {
        Object result = put(put, invocation); // a delete that throws removes nothing: its row may still be there
        List<Object> keys = remove.provenKeys(invocation.getArguments(), result);
        if (!keys.isEmpty()) {
            switch (ActiveTransactions.scope()) {
                case NONE -> remove.removeKeys(keys);
                case SYNCHRONIZED -> ActiveTransactions.afterCommitUnlessUndone(() -> remove.removeKeys(keys));
                case UNSYNCHRONIZED -> remove.leftInUnwatchedTransaction();
            }
        }
        return result;
    }

    private @Nullable Object put(@Nullable PutOperation put, MethodInvocation invocation) throws Throwable {
        if (put == null) {
            return invocation.proceed();
        }
        Object[] args = invocation.getArguments();
        if (!put.key().usesResult()) {
            Object known = put.keysOf(args, null);
            if (known != null && !LateKeys.anyNull(known)) {
                put.putKeys(known); // known up front: in before anything is written
                return invocation.proceed();
            }
            // Not known yet, e.g. #user.id (or #users.![id]) before the database assigns it: read again once the
            // method returns.
        }
        UnkeyedWrites.Write write = put.filter().unkeyedWrites().begin();
        boolean inTransaction = ActiveTransactions.onSuspend(write::visible);
        if (!inTransaction || put.kind().deferred()) {
            // Each statement commits at once; or the work runs elsewhere (a future's, a Mono.just of a save), in a
            // transaction of its own that may commit before this call returns.
            write.visible();
        }
        boolean keyedAtCommit = false;
        try {
            Object result;
            try {
                result = invocation.proceed();
            }
            catch (Throwable ex) {
                InterruptedWrites.threw(put, args, ex);
                throw ex;
            }
            switch (put.kind()) {
                case NOW -> keyedAtCommit = putNow(put, args, result, inTransaction, write);
                case MONO, FLUX -> {
                    if (DeferredPuts.isPendingPublisher(result)) {
                        return ReactivePuts.putOnDelivery(put, args, result);
                    }
                    if (result != null) {
                        ReactivePuts.putDelivered(put, args, result); // a Mono.just(...): written when called
                    }
                }
                case COMPLETION_STAGE -> {
                    if (result != null) {
                        return DeferredPuts.putWhenComplete((CompletionStage<?>) result, put, args,
                                put.filter().unkeyedWrites().beginDetached());
                    }
                }
                default -> putUnwatchable(put, args, result);
            }
            return result;
        }
        finally {
            if (!keyedAtCommit) {
                write.end();
            }
        }
    }

    /**
     * Puts the key(s) of a method that returned what it wrote; a key still {@code null} (or an element of a
     * collection of keys) is put at the commit, as soon as the database has filled it in.
     *
     * @return whether the write stays unkeyed until its transaction ends
     */
    private boolean putNow(PutOperation put, Object[] args, @Nullable Object result, boolean inTransaction,
            UnkeyedWrites.Write write) {
        if (!inTransaction && put.sharedFilter()) {
            reportOnce(put, "no transaction", () -> warnOutsideTransaction(put));
        }
        LateKeys late = LateKeys.of(put, args, result, put.putFromResult(args, result));
        if (late == null) {
            return false;
        }
        AtomicBoolean keyedBeforeCommit = new AtomicBoolean();
        boolean atCommit = inTransaction && ActiveTransactions.atCommit(
                () -> {
                    late.putKnown();
                    if (late.complete()) {
                        keyedBeforeCommit.set(true);
                    }
                    else {
                        write.visible(); // known only once committed: the row may be read before the key is in
                    }
                },
                () -> {
                    if (!keyedBeforeCommit.get()) {
                        putAfterCommit(put, late);
                    }
                },
                write::end);
        if (!atCommit) {
            keysStillUnknown(put, late, "when the method returned, with no transaction whose commit bloom-guard can"
                    + " wait for");
        }
        return atCommit;
    }

    private void putAfterCommit(PutOperation put, LateKeys late) {
        if (late.putKnown() > 0 && put.sharedFilter()) {
            reportOnce(put, "after commit", () -> logger.warn(put.description() + " puts its @BloomPut key into shared"
                    + " filter '" + put.filter().name() + "' only after its transaction has committed (the key was"
                    + " null until then: a column the database fills in at the flush), so other instances can read"
                    + " the row a moment before its key. Key the @BloomPut on a value known before the commit."));
        }
        if (!late.complete()) {
            keysStillUnknown(put, late, "after its transaction committed");
        }
    }

    /**
     * A single key from the result still null is no key (an optional attribute); one from the arguments may be a
     * record keyed where the expression does not read, which is worth a warning. Elements of a returned collection
     * still without theirs are records whose keys never reach the filter.
     */
    private void keysStillUnknown(PutOperation put, LateKeys late, String when) {
        if (late.whole() || !put.key().usesResult()) {
            reportNullArgumentKey(put);
        }
        else {
            late.reportElementsLost(when);
        }
    }

    /** A plain {@code Future}: a key from the arguments still unknown when the method returns cannot be watched. */
    private static void putUnwatchable(PutOperation put, Object[] args, @Nullable Object result) {
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
     * Says once per method that a key from the arguments, unknown before the call, was still null after it: nothing
     * was put. Either the key may be null (an optional attribute: no lookup can ask for it), or the write gave it
     * to something the expression does not read, and the record would be rejected.
     */
    private void reportNullArgumentKey(PutOperation put) {
        if (put.key().usesResult()) {
            return; // a null attribute of the result: nothing to key
        }
        reportOnce(put, "null argument key", () -> logger.warn(put.description() + ": its @BloomPut key was null"
                + " before the method ran and is still null after it returned, so no key was put into filter '"
                + put.filter().name() + "'. If the write gives the record its key somewhere the expression does not"
                + " read (an id set on a new instance that the method returns, as Spring Data JDBC does for immutable"
                + " entities), that record will be rejected: key the @BloomPut on #result instead (e.g. #result.id)."
                + " A key that may be null (an optional attribute) needs no change."));
    }

    private void reportOnce(PutOperation put, String problem, Runnable report) {
        if (reported.add(put.description() + ": " + problem)) {
            report.run();
        }
    }

    /**
     * With no transaction around this point, whatever the method wrote is committed already: other instances
     * sharing the filter can read the row a moment before its key.
     */
    private static void warnOutsideTransaction(PutOperation put) {
        logger.warn(put.description() + " puts its @BloomPut key into shared filter '" + put.filter().name()
                + "' after its row may be committed, so other instances can read the row a moment before its key:"
                + " no transaction is active where bloom-guard puts it. Make the method @Transactional, or put the"
                + " @BloomPut on the repository method that writes. With transactions woven by AspectJ the same applies;"
                + " a transaction advisor of your own at the lowest precedence, declared after bloom-guard's"
                + " auto-configuration, needs a higher precedence. See docs/guard.md, \"The key is in before the"
                + " commit\".");
    }
}
