package io.bloomguard.core;

/**
 * Where a {@link SharedBloomFilter} stands, as this instance sees the shared store. Only {@link #READY} may
 * reject a key; every other status answers "might contain".
 *
 * @since 0.1.0
 */
public enum SharedFilterStatus {

    /** Not started yet: nothing has been read from the store. */
    NOT_STARTED,

    /** The stored filter is being loaded (by this instance or another) and is not complete yet. */
    LOADING,

    /** Complete and matching this instance's configuration. */
    READY,

    /** The stored bits are gone (deleted, evicted, flushed); it is rebuilt from the key source. */
    MISSING,

    /**
     * The stored filter was built with another size, hash count, layout or shard count than this instance is
     * configured for. Checks pass through and adds still go to the stored filter (in its own layout) until a
     * rebuild brings it in line with the configuration.
     */
    MISMATCHED,

    /** Adds did not reach the store (it was unreachable); it is not trusted until they are replayed or it is rebuilt. */
    STALE,

    /**
     * The store refuses this instance: no or wrong credentials, a user whose ACL denies a command or key the
     * filter needs, or a key of the filter that holds a value of another type than the filter writes there. A
     * configuration mistake: it lasts until fixed, and this instance's adds cannot reach the store.
     */
    ACCESS_DENIED,

    /** The store has not been reached since this instance started: it has not joined the shared filter yet. */
    UNREACHABLE
}
