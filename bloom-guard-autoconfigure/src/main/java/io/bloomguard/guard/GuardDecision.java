package io.bloomguard.guard;

import io.bloomguard.registry.BackendFailurePolicy;
import io.bloomguard.registry.CheckResult;
import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import io.bloomguard.registry.UnkeyedWrites;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The guard's decision for a checked call, in one place: the key to check, whether the filter's answer decides the call
 * (pass or reject, given the filter's state and mode), and what is recorded of it (counters, the call's observation,
 * false positives and shadow false negatives once the method has answered). Only asking the filter differs between a
 * blocking call ({@link BloomGuardInterceptor}) and a Reactor one ({@link ReactiveGuard}): both adapters ask, then hand
 * the answer here.
 *
 * <p>A call is rejected only when the mode is {@code enforce} and the filter's {@link NamedBloomFilter#check check}
 * answers {@link CheckResult#ABSENT}: it is ready, and says "absent" still once any write under way whose row may
 * already be visible has put its key ({@link UnkeyedWrites}).
 * Anything unexpected (no key, a key expression that fails, a key of an unsupported type, a backend error under the
 * {@code allow} policy) lets the call through: a wasted query is the price of never answering "not found" for a record
 * that exists.
 */
final class GuardDecision {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final Set<String> reportedKeyProblems = ConcurrentHashMap.newKeySet();
    private @Nullable CheckObserver observer; // set once, as the context finishes starting: read on every call

    /** From now on, checks are watched by {@code observer}, if not {@code null}. */
    void watchedBy(@Nullable CheckObserver observer) {
        this.observer = observer;
    }

    /**
     * Whether the call goes through and, if the filter answered, for which key and with what answer.
     *
     * @param key          the key checked, or {@code null} when the filter did not answer (unchecked, or failed)
     * @param mightContain the filter's answer, when it gave one
     */
    record Verdict(boolean through, @Nullable Object key, boolean mightContain) {

        /** The call goes through unchecked. */
        static final Verdict UNCHECKED = new Verdict(true, null, true);

        static Verdict unanswered(boolean through) {
            return new Verdict(through, null, true);
        }
    }

    /**
     * Starts watching a call's check, if anything watches: {@code null} (and nothing made) otherwise.
     *
     * @param parent the observation a reactive subscriber's context holds, or {@code null}
     */
    CheckObserver.@Nullable Check startCheck(GuardOperation guard, @Nullable Object parent) {
        CheckObserver watching = observer;
        return (watching != null) ? watching.start(guard.filter().name(), parent) : null;
    }

    /**
     * Key: the key to check a call with, or {@code null} when the call goes through unchecked (counted as skipped): the
     * filter is off or not ready, or the key cannot be computed.
     */
    @Nullable Object keyToCheck(GuardOperation guard, Object[] args, CheckObserver.@Nullable Check check) {
        if (!filterDecides(guard, check)) {
            return null;
        }
        Object key;
        try {
            key = guard.key().evaluate(args, null);
        }
        catch (RuntimeException ex) {
            reportKeyProblem(guard.description(), "could not compute its key", ex);
            key = null;
        }
        if (key == null) {
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NO_KEY);
        }
        return key;
    }

    /**
     * Whether the filter's answer may decide a call: not when it is off or not ready, and the call is then counted as
     * skipped.
     */
    boolean filterDecides(GuardOperation guard, CheckObserver.@Nullable Check check) {
        NamedBloomFilter filter = guard.filter();
        if (filter.mode() == GuardMode.OFF) {
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.MODE_OFF);
            return false;
        }
        if (!filter.trustedToReject()) {
            decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NOT_READY);
            return false;
        }
        return true;
    }

    /**
     * Decide: whether a checked call goes through, given the filter's answer: it does when the filter said "might
     * contain", or only shadows.
     */
    private Verdict decide(GuardOperation guard, Object key, boolean mightContain,
            CheckObserver.@Nullable Check check) {
        if (mightContain) {
            decided(guard, check, CheckOutcome.PASSED, null);
            return new Verdict(true, key, true);
        }
        if (guard.filter().mode() != GuardMode.ENFORCE) { // shadow, or switched off since filterDecides: let it by
            decided(guard, check, CheckOutcome.SHADOW_REJECTED, null);
            return new Verdict(true, key, false);
        }
        decided(guard, check, CheckOutcome.REJECTED, null);
        return new Verdict(false, key, false);
    }

    /**
     * Decide: whether a checked call goes through, given the filter's {@link NamedBloomFilter#check answer}: an
     * undecided one lets it through unchecked, counted with its reason.
     */
    Verdict decide(GuardOperation guard, Object key, CheckResult result, CheckObserver.@Nullable Check check) {
        return result.decided() ? decide(guard, key, result.mightContain(), check) : undecided(guard, result, check);
    }

    /**
     * Decide: the filter did not decide (it stopped being trusted since {@link #filterDecides}, or said "absent" while
     * a write under way had not put its key).
     */
    Verdict undecided(GuardOperation guard, CheckResult result, CheckObserver.@Nullable Check check) {
        decided(guard, check, CheckOutcome.SKIPPED, Objects.requireNonNull(result.skipReason(), "an undecided reason"));
        return Verdict.UNCHECKED;
    }

    /** Decide: a key the filter cannot hash goes through unchecked, and the problem is logged once. */
    Verdict unhashable(GuardOperation guard, IllegalArgumentException ex, CheckObserver.@Nullable Check check) {
        reportKeyProblem(guard.description(), "computed a key the filter cannot hash", ex);
        decided(guard, check, CheckOutcome.SKIPPED, SkipReason.NO_KEY);
        return Verdict.UNCHECKED;
    }

    /**
     * Decide: whether a call whose check failed goes through, by the filter's {@code on-backend-failure}:
     * {@code allow} yes, {@code reject} no (it answers empty), {@code throw} passes the failure on. A filter in
     * {@code shadow} mode always lets it through: it only watches, and must not answer differently from the method,
     * not even when its backend fails.
     */
    Verdict failed(GuardOperation guard, RuntimeException failure, CheckObserver.@Nullable Check check) {
        NamedBloomFilter filter = guard.filter();
        filter.counters().backendError();
        BackendFailurePolicy policy = (filter.mode() != GuardMode.ENFORCE)
                ? BackendFailurePolicy.ALLOW : filter.spec().guard().onBackendFailure();
        switch (policy) {
            case REJECT:
                decided(guard, check, CheckOutcome.REJECTED, SkipReason.BACKEND_FAILURE);
                return Verdict.unanswered(false);
            case THROW:
                if (check != null) {
                    check.error(failure);
                }
                decided(guard, check, CheckOutcome.FAILED, SkipReason.BACKEND_FAILURE);
                throw failure;
            default:
                logger.debug("Filter '" + filter.name() + "' failed a check; letting the call through", failure);
                decided(guard, check, CheckOutcome.SKIPPED, SkipReason.BACKEND_FAILURE);
                return Verdict.unanswered(true);
        }
    }

    /**
     * Record: what the guard did with a checked call, counted, and told to the call's observation if it has one.
     * Every check ends here, once.
     */
    static void decided(GuardOperation guard, CheckObserver.@Nullable Check check, CheckOutcome outcome,
            @Nullable SkipReason reason) {
        FilterCounters counters = guard.filter().counters();
        switch (outcome) {
            case REJECTED -> {
                if (reason == null) { // a rejection on-backend-failure made is not the filter's: backend.errors has it
                    counters.rejected();
                }
            }
            case PASSED -> counters.passed();
            case SHADOW_REJECTED -> counters.shadowRejection();
            case SKIPPED -> counters.skipped(Objects.requireNonNull(reason, "a skipped call's reason"));
            case FAILED -> { } // thrown to the caller; backend.errors has it
        }
        if (check != null) {
            check.decided(outcome, reason);
        }
    }

    /** Record: whether the method's answer to a call that went through tells whether the filter was right. */
    static boolean answerCounts(GuardOperation guard, Verdict verdict) {
        return verdict.key() != null && guard.answersWithValue();
    }

    /**
     * Record: counts what the filter's answer turned out to be, where the result shows it: a "might contain" that
     * found nothing (a false positive), a shadow "absent" that found something (a false negative, also logged).
     */
    void countAnswer(GuardOperation guard, Verdict verdict, @Nullable Object result) {
        if (!answerCounts(guard, verdict)) {
            return;
        }
        // Only the judgement the answer needs: a "might contain" can only be a false positive, an "absent" a false
        // negative.
        boolean empty = verdict.mightContain() && EmptyValues.isEmpty(result);
        boolean found = !verdict.mightContain() && EmptyValues.isFound(result);
        countAnswer(guard, verdict, empty, found);
    }

    /**
     * As above, for a result already judged: {@code empty} when it says "not found", {@code found} when it says
     * "found" (a stream says neither until it is consumed).
     */
    void countAnswer(GuardOperation guard, Verdict verdict, boolean empty, boolean found) {
        Object key = verdict.key();
        if (!answerCounts(guard, verdict)) {
            return;
        }
        NamedBloomFilter filter = guard.filter();
        if (verdict.mightContain()) {
            if (filter.mode() == GuardMode.ENFORCE && empty) {
                filter.counters().falsePositive();
            }
        }
        else if (found) {
            filter.counters().shadowFalseNegative();
            logger.warn("Filter '" + filter.name() + "' (shadow mode) would have rejected key '" + key + "' in "
                    + guard.description() + ", which exists: the filter is missing keys");
        }
    }

    /** Logs, once per method and problem, why calls of a guarded method go unguarded. */
    void reportKeyProblem(String description, String problem, RuntimeException ex) {
        if (reportedKeyProblems.add(description + ": " + problem)) {
            logger.error(description + " " + problem + ", so such calls are not guarded: " + ex.getMessage());
        }
    }
}
