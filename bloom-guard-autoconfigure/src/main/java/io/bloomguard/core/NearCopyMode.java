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
    ORDERED;

    /** Whether a copy is kept. */
    public boolean keepsCopy() {
        return this != OFF;
    }
}
