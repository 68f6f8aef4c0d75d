package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

/**
 * A {@link NamedBloomFilter}'s answer for a key ({@link NamedBloomFilter#check}): absent, might contain, or undecided,
 * with why. Only {@link #ABSENT} may be acted on as "the record does not exist"; every other answer lets the call
 * through. Constants, so that asking allocates nothing.
 *
 * @since 0.1.0
 */
public enum CheckResult {

    /**
     * The filter is trusted to reject and says the key is absent, still so once every write under way whose row may
     * be visible has put its key.
     */
    ABSENT,

    /** The filter says the key might be in. */
    MIGHT_CONTAIN,

    /**
     * Undecided: the filter is not trusted to reject (not {@code READY}, or for a shared filter not complete in its
     * store, or a write that lost its key is still in an open transaction), so its bits were not asked.
     */
    NOT_READY,

    /**
     * Undecided: the filter said "absent" while the caller is inside a write of its own to the filter (its thread's, or
     * its reactive pipeline's) whose row is there and whose key is not yet.
     */
    OWN_WRITE_PENDING,

    /**
     * Undecided: the filter said "absent" while writes whose rows may be visible had not put their keys, and they
     * did not within {@link UnkeyedWrites#MAX_WAIT}.
     */
    WRITES_PENDING;

    /** Whether the filter decided: {@link #ABSENT} or {@link #MIGHT_CONTAIN}. */
    public boolean decided() {
        return this == ABSENT || this == MIGHT_CONTAIN;
    }

    /** As {@code mightContain} answers: {@code false} for {@link #ABSENT} only. */
    public boolean mightContain() {
        return this != ABSENT;
    }

    /** Why the guard let a call through undecided, as counted; {@code null} when the filter decided. */
    public @Nullable SkipReason skipReason() {
        return switch (this) {
            case NOT_READY -> SkipReason.NOT_READY;
            case OWN_WRITE_PENDING, WRITES_PENDING -> SkipReason.WRITE_PENDING;
            case ABSENT, MIGHT_CONTAIN -> null;
        };
    }
}
