package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.KeyCanonicalizer;
import org.jspecify.annotations.Nullable;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link NamedBloomFilter}'s checks, and the one place of the rule they follow: the filter's bits are asked only
 * once it is trusted to reject, and an "absent" is taken only once the {@link UnkeyedWrites writes under way} whose
 * rows may be visible have put their keys (asked again after waiting for them, at most
 * {@link UnkeyedWrites#MAX_WAIT}); inside a write of its own to the filter, the caller is answered undecided.
 */
final class FilterChecks {

    private final BloomFilter backend;
    private final BackendLifecycle lifecycle;
    private final FilterStateMachine states;
    private final UnkeyedWrites unkeyedWrites = new UnkeyedWrites();

    FilterChecks(BloomFilter backend, BackendLifecycle lifecycle, FilterStateMachine states) {
        this.backend = backend;
        this.lifecycle = lifecycle;
        this.states = states;
    }

    /** The writes under way whose rows may be visible before their keys are in this filter. */
    UnkeyedWrites unkeyedWrites() {
        return unkeyedWrites;
    }

    /** @param inOwnWrite whether the caller's reactive pipeline writes to this filter (its thread is looked at here) */
    CheckResult check(Object key, boolean inOwnWrite) {
        if (!states.trustedToReject()) {
            refuseUnsupported(key);
            return CheckResult.NOT_READY;
        }
        int visibleWrites = unkeyedWrites.visibleCount(); // before the bits: a write that puts its key after is counted
        if (backend.mightContain(key)) {
            return CheckResult.MIGHT_CONTAIN;
        }
        CheckResult absent = absentOnceWritesAreKeyed(visibleWrites, inOwnWrite);
        if (absent != null) {
            return absent;
        }
        return backend.mightContain(key) ? CheckResult.MIGHT_CONTAIN : CheckResult.ABSENT;
    }

    /**
     * {@link #check} without blocking: a shared filter's answer, and the writes under way, are waited for by the
     * future. Whether the calling thread writes is read here, on it.
     */
    CompletableFuture<CheckResult> checkAsync(Object key, boolean inOwnWrite) {
        if (!states.trustedToReject()) {
            refuseUnsupported(key);
            return done(CheckResult.NOT_READY);
        }
        int visibleWrites = unkeyedWrites.visibleCount();
        boolean ownWrite = inOwnWrite || unkeyedWrites.writingOnThisThread();
        CompletableFuture<Boolean> answer = lifecycle.mightContainAsync(key);
        if (answer.isDone() && !answer.isCompletedExceptionally()) { // a local backend's, at once
            return answered(key, answer.join(), visibleWrites, ownWrite);
        }
        return answer.thenCompose(mightContain -> answered(key, mightContain, visibleWrites, ownWrite));
    }

    private CompletableFuture<CheckResult> answered(Object key, boolean mightContain, int visibleWrites,
            boolean ownWrite) {
        if (mightContain) {
            return done(CheckResult.MIGHT_CONTAIN);
        }
        if (!ownWrite && visibleWrites == 0) {
            return done(CheckResult.ABSENT);
        }
        if (ownWrite) {
            return done(CheckResult.OWN_WRITE_PENDING);
        }
        return unkeyedWrites.settled()
                .orTimeout(UnkeyedWrites.MAX_WAIT.toNanos(), TimeUnit.NANOSECONDS)
                .handle((settled, late) -> late == null)
                .thenCompose(settled -> settled
                        ? lifecycle.mightContainAsync(key).thenApply(again -> again ? CheckResult.MIGHT_CONTAIN
                                : CheckResult.ABSENT)
                        : done(CheckResult.WRITES_PENDING));
    }

    /** {@link #check} for many keys, with one batch of the backend (and one more after waiting for writes). */
    BatchCheckResult checkAll(List<?> keys, boolean inOwnWrite) {
        if (!states.trustedToReject()) {
            keys.forEach(FilterChecks::refuseUnsupported);
            return undecided(CheckResult.NOT_READY, new boolean[keys.size()]);
        }
        int visibleWrites = unkeyedWrites.visibleCount();
        boolean[] answers = backend.mightContainAll(keys);
        if (allTrue(answers)) {
            return new BatchCheckResult(CheckResult.MIGHT_CONTAIN, answers);
        }
        CheckResult absent = absentOnceWritesAreKeyed(visibleWrites, inOwnWrite);
        if (absent == CheckResult.ABSENT) {
            return new BatchCheckResult(CheckResult.ABSENT, answers);
        }
        if (absent != null) {
            return undecided(absent, answers);
        }
        answers = backend.mightContainAll(keys);
        return new BatchCheckResult(allTrue(answers) ? CheckResult.MIGHT_CONTAIN : CheckResult.ABSENT, answers);
    }

    /**
     * What the bits' "absent" stands for, given the writes under way when they were asked: {@code ABSENT} when none
     * was, undecided inside a write of the caller's own or when they outlast the wait, {@code null} when they have
     * put their keys (blocking for them) and the bits are to be asked again.
     */
    private @Nullable CheckResult absentOnceWritesAreKeyed(int visibleWrites, boolean inOwnWrite) {
        boolean ownWrite = inOwnWrite || unkeyedWrites.writingOnThisThread();
        if (!ownWrite && visibleWrites == 0) {
            return CheckResult.ABSENT;
        }
        if (ownWrite) {
            return CheckResult.OWN_WRITE_PENDING;
        }
        return unkeyedWrites.awaitVisibleWrites() ? null : CheckResult.WRITES_PENDING;
    }

    /**
     * A key the filter could never hold is refused whatever the state, not only once the filter is trusted: a call
     * that works while the filter loads must not start failing in production.
     */
    private static void refuseUnsupported(Object key) {
        KeyCanonicalizer.hash(key, 0);
    }

    private static BatchCheckResult undecided(CheckResult why, boolean[] answers) {
        Arrays.fill(answers, true);
        return new BatchCheckResult(why, answers);
    }

    private static CompletableFuture<CheckResult> done(CheckResult result) {
        return CompletableFuture.completedFuture(result);
    }

    private static boolean allTrue(boolean[] answers) {
        for (boolean answer : answers) {
            if (!answer) {
                return false;
            }
        }
        return true;
    }
}
