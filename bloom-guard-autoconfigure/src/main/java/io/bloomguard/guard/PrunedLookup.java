package io.bloomguard.guard;

import io.bloomguard.registry.BatchCheckResult;
import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.SkipReason;
import io.bloomguard.registry.UnkeyedWrites;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Guards a call whose key parameter holds many keys ({@link KeyBatch}): all its keys are checked in one batch (one
 * round trip to a shared filter), and the method runs with only the elements that might exist; with none left, the
 * call answers the empty value of its type without running. The multi-key form of the guard's decision
 * ({@link GuardDecision}), under the same rules: an element is dropped only when the filter is ready, the mode is
 * {@code enforce}, and its key is "absent" once the writes under way whose rows may be visible have put their keys.
 * An element with no key (a {@code null}, a key expression that fails) is kept, and so is every element of a call the
 * filter cannot decide.
 *
 * <p>Counting: each key the filter answered counts as a call of its own would (passed, rejected, shadow-rejected); a
 * call the filter did not decide counts once as skipped. A call that passed keys and found nothing counts them all as
 * false positives; which row answered which key is not known, so a call that found something counts none.
 */
final class PrunedLookup {

    private PrunedLookup() {
    }

    /** One call's elements, and the keys the filter is asked about with the index of the element each belongs to. */
    record Batch(List<@Nullable Object> elements, List<Object> keys, int[] elementOfKey) {
    }

    /**
     * What the guard does with a multi-key call.
     *
     * @param through    whether the method runs; if not, the call answers empty
     * @param kept       the elements the method runs with, or {@code null} for all of them
     * @param keptCount  how many of them there are
     * @param passedKeys how many keys the filter said might exist, for the false positives
     */
    record Pruning(boolean through, boolean @Nullable [] kept, int keptCount, long passedKeys) {

        static final Pruning AS_IS = new Pruning(true, null, -1, 0);
        static final Pruning EMPTY = new Pruning(false, null, 0, 0);

        /** The call's arguments with the key parameter pruned to the kept elements. */
        Object[] arguments(KeyBatch keyBatch, Object[] args, Batch batch) {
            if (kept == null) {
                return args;
            }
            Object[] pruned = args.clone();
            pruned[keyBatch.parameter()] = keyBatch.withOnly(args[keyBatch.parameter()], batch.elements(), kept, keptCount);
            return pruned;
        }
    }

    static @Nullable Object guard(GuardDecision decision, GuardOperation guard, MethodInvocation invocation)
            throws Throwable {
        Object[] args = invocation.getArguments();
        CheckObserver.Check check = decision.startCheck(guard, null);
        Batch batch = batchToCheck(decision, guard, args, check);
        if (batch == null) {
            return invocation.proceed();
        }
        Pruning pruning = ask(decision, guard, batch, false, check);
        if (!pruning.through()) {
            return guard.emptyValue().apply(args);
        }
        boolean[] kept = pruning.kept();
        if (kept != null) {
            // A method invocation's arguments may be changed in place: the advice further in and the method see them.
            KeyBatch keyBatch = guard.batch();
            int parameter = keyBatch.parameter();
            args[parameter] = keyBatch.withOnly(args[parameter], batch.elements(), kept, pruning.keptCount());
        }
        Object result = invocation.proceed();
        countAnswer(guard, pruning, EmptyValues.isEmpty(result));
        return result;
    }

    /**
     * The keys to ask the filter about, or {@code null} when the call runs as it is, counted as skipped: the filter is
     * off or not ready, or no element has a key.
     */
    static @Nullable Batch batchToCheck(GuardDecision decision, GuardOperation guard, Object[] args,
            CheckObserver.@Nullable Check check) {
        if (!decision.filterDecides(guard, check)) {
            return null;
        }
        KeyBatch keyBatch = guard.batch();
        List<@Nullable Object> elements = keyBatch.elements(args);
        @Nullable Object[] keys = (elements == null) ? new Object[0] : keyBatch.keys(args, elements,
                problem -> decision.reportKeyProblem(guard.description(), "could not compute an element's key", problem));
        List<Object> checked = new ArrayList<>(keys.length);
        int[] elementOfKey = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            Object key = keys[i];
            if (key != null) {
                elementOfKey[checked.size()] = i;
                checked.add(key);
            }
        }
        if (checked.isEmpty()) {
            GuardDecision.decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NO_KEY);
            return null;
        }
        return new Batch(elements, checked, elementOfKey);
    }

    /**
     * Asks the filter about the batch on the calling thread, waiting (at most {@link UnkeyedWrites#MAX_WAIT}) for
     * writes under way whose rows may be visible to put their keys before an "absent" is taken, and decides.
     *
     * @param writingHere whether the caller's reactive pipeline writes to the filter
     */
    static Pruning ask(GuardDecision decision, GuardOperation guard, Batch batch, boolean writingHere,
            CheckObserver.@Nullable Check check) {
        BatchCheckResult answers;
        try {
            answers = guard.filter().checkAll(batch.keys(), writingHere);
        }
        catch (IllegalArgumentException ex) {
            decision.unhashable(guard, ex, check);
            return Pruning.AS_IS;
        }
        catch (RuntimeException ex) {
            return decision.failed(guard, ex, check).through() ? Pruning.AS_IS : Pruning.EMPTY;
        }
        if (!answers.result().decided()) {
            decision.undecided(guard, answers.result(), check);
            return Pruning.AS_IS;
        }
        return decide(guard, batch, answers.mightContain(), check);
    }

    /**
     * Drops the elements whose keys the filter says are absent, in {@code enforce} mode; in {@code shadow} mode keeps
     * them, counting them as shadow rejections.
     */
    private static Pruning decide(GuardOperation guard, Batch batch, boolean[] answers,
            CheckObserver.@Nullable Check check) {
        boolean enforce = guard.filter().mode() == GuardMode.ENFORCE;
        boolean[] kept = new boolean[batch.elements().size()];
        Arrays.fill(kept, true);
        int absent = 0;
        for (int i = 0; i < answers.length; i++) {
            if (!answers[i]) {
                absent++;
                kept[batch.elementOfKey()[i]] = false; // so are its duplicates, which have the same key
            }
        }
        long passed = answers.length - absent;
        FilterCounters counters = guard.filter().counters();
        counters.keysChecked(passed, enforce ? absent : 0, enforce ? 0 : absent);
        int keptCount = enforce ? batch.elements().size() - absent : batch.elements().size();
        CheckOutcome outcome = (keptCount == 0) ? CheckOutcome.REJECTED
                : (absent > 0 && !enforce) ? CheckOutcome.SHADOW_REJECTED : CheckOutcome.PASSED;
        if (check != null) {
            check.decided(outcome, null);
        }
        if (keptCount == 0) {
            return Pruning.EMPTY;
        }
        return new Pruning(true, (enforce && absent > 0) ? kept : null, keptCount, passed);
    }

    /** Counts the passed keys as false positives when the call they went through with found nothing. */
    static void countAnswer(GuardOperation guard, Pruning pruning, boolean foundNothing) {
        if (foundNothing && pruning.passedKeys() > 0 && guard.answersWithValue()
                && guard.filter().mode() == GuardMode.ENFORCE) {
            guard.filter().counters().falsePositives(pruning.passedKeys());
        }
    }
}
