package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.KeyCanonicalizer;

import java.util.Arrays;
import java.util.List;

/**
 * A {@link NamedBloomFilter}'s checks ({@code mightContain}, {@code mightContainAll}): "might contain" for every key
 * until the filter is trusted to reject, and "absent" only once the {@link UnkeyedWrites writes under way} whose rows
 * may be visible have put their keys, as the guard decides.
 */
final class FilterChecks {

    private final BloomFilter backend;
    private final FilterStateMachine states;
    private final UnkeyedWrites unkeyedWrites = new UnkeyedWrites();

    FilterChecks(BloomFilter backend, FilterStateMachine states) {
        this.backend = backend;
        this.states = states;
    }

    /** The writes under way whose rows may be visible before their keys are in this filter. */
    UnkeyedWrites unkeyedWrites() {
        return unkeyedWrites;
    }

    boolean mightContain(Object key) {
        if (!states.trustedToReject()) {
            // A key the filter could never hold is refused whatever the state, not only once the filter is READY:
            // a call that works while the filter loads must not start failing in production.
            KeyCanonicalizer.hash(key, 0);
            return true;
        }
        int visibleWrites = unkeyedWrites.visibleCount(); // before the bits, as the guard reads it
        if (backend.mightContain(key)) {
            return true;
        }
        if (visibleWrites == 0 && !unkeyedWrites.writingOnThisThread()) {
            return false;
        }
        // As the guard: "absent" only once the writes whose rows may be visible have put their keys.
        return unkeyedWrites.writingOnThisThread() || !unkeyedWrites.awaitVisibleWrites() || backend.mightContain(key);
    }

    boolean[] mightContainAll(List<?> keys) {
        if (!states.trustedToReject()) {
            keys.forEach(key -> KeyCanonicalizer.hash(key, 0)); // refused in every state, as by mightContain
            boolean[] all = new boolean[keys.size()];
            Arrays.fill(all, true);
            return all;
        }
        int visibleWrites = unkeyedWrites.visibleCount();
        boolean[] answers = backend.mightContainAll(keys);
        if (visibleWrites == 0 && !unkeyedWrites.writingOnThisThread() || allTrue(answers)) {
            return answers;
        }
        if (unkeyedWrites.writingOnThisThread() || !unkeyedWrites.awaitVisibleWrites()) {
            Arrays.fill(answers, true);
            return answers;
        }
        return backend.mightContainAll(keys);
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
