package io.bloomguard.registry;

/**
 * What the guard does with a key the filter says is absent; from the strongest to the weakest.
 *
 * @since 0.1.0
 */
public enum GuardMode {

    /** Answer the call with the empty value of its return type, without running the method. */
    ENFORCE,

    /** Record that the call would have been rejected, then run the method anyway. */
    SHADOW,

    /** Do not check at all. */
    OFF
}
