package io.bloomguard.core;

/**
 * Whether each instance keeps a copy of a shared filter's bits in its heap ({@code redis.near-copy}), and what the
 * copy answers.
 *
 * @since 0.1.0
 */
public enum NearCopyMode {

    /** No copy: every check reads the store. */
    OFF,

    /** A copy answers the keys it holds; a key it lacks is read in the store. */
    ON,

    /**
     * A copy kept in step with the store's adds, in the order the store processed them, answers every key: one it
     * lacks after a barrier shows it holds every add processed before the check began. Out of step, it answers as
     * {@link #ON}.
     */
    ORDERED,

    /**
     * {@link #ORDERED}, and while a flood of absent keys lasts, a key the copy lacks is answered with no command to
     * the store under a lease the copy renews about twice a lease; every writer then waits a lease (and the clock-rate
     * margin) before its commit, so that a lookup that begins after the commit finds the key or finds the lease lapsed.
     * Every instance that writes the filter must be on a version that waits, configured {@code leased} with the same
     * {@code bloom-guard.redis.near-copy-lease}.
     */
    LEASED;

    /** Whether a copy is kept. */
    public boolean keepsCopy() {
        return this != OFF;
    }
}
