package io.bloomguard.registry;

/**
 * Where a filter is in its lifecycle. Only a {@link #READY} filter may reject a key; in every other state the
 * filter answers "might contain" and guarded calls pass through.
 */
public enum FilterState {

    /** Its key source is being read; not yet complete. */
    LOADING,

    /** Complete: every existing key is in it. */
    READY,

    /** Its preload failed; it cannot be trusted until a preload succeeds. */
    FAILED,

    /** {@code bloom-guard.enabled=false}: kept so that code injecting it still starts, but never trusted. */
    DISABLED
}
