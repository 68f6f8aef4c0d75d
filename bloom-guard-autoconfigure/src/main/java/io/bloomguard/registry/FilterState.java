package io.bloomguard.registry;

/**
 * Where a filter is in its lifecycle. Only a {@link #READY} filter may reject a key; in every other state the
 * filter answers "might contain" and guarded calls pass through. A shared (Redis) filter is {@link #LOADING}
 * also while its stored bits are being loaded or rebuilt by any instance, or are missing.
 *
 * @since 0.1.0
 */
public enum FilterState {

    /** Its key source is being read; not yet complete. */
    LOADING,

    /** Complete: every existing key is in it. */
    READY,

    /** Its preload failed; it cannot be trusted until a preload succeeds. */
    FAILED,

    /**
     * {@code bloom-guard.enabled=false}: kept so that code injecting it still starts, but holds no bits (see
     * {@link DisabledBloomFilter}) and is never trusted.
     */
    DISABLED,

    /**
     * Shared filters: the stored filter was built with another size than this instance is configured for. Calls
     * pass through (adds still reach it) until a rebuild brings it in line with the configuration.
     */
    MISMATCHED,

    /**
     * Shared filters: adds did not reach the store (it was unreachable) or were lost; calls pass through until they
     * are replayed or the filter is rebuilt.
     */
    STALE,

    /**
     * Shared filters: the store refuses this instance (no or a wrong password, an ACL that denies a command or
     * key the filter needs, or a key of the filter that holds another type than it writes there);
     * {@link NamedBloomFilter#stateReason()} says what and how to fix it. Calls pass
     * through, adds fail, and the application's readiness is held at {@code REFUSING_TRAFFIC} until it is fixed.
     */
    ACCESS_DENIED,

    /**
     * Shared filters: the store could not be reached since the application started, so this instance has not
     * joined the filter. Calls pass through and the application's readiness is held at {@code REFUSING_TRAFFIC}
     * until it has (an outage after that does not hold readiness: calls pass through meanwhile).
     */
    UNREACHABLE
}
