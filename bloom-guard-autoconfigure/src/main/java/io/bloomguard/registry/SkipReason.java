package io.bloomguard.registry;

/**
 * Why a guarded call went through without the filter deciding it: counted per reason, and a meter tag.
 *
 * @since 0.1.0
 */
public enum SkipReason {

    /** The filter is not {@code READY} (loading, failed, stale, mismatched, unreachable, refused). */
    NOT_READY,

    /** The filter's mode is {@code off}. */
    MODE_OFF,

    /** The call has no key: a {@code null} key, a key expression that failed, a key of a type with no key form. */
    NO_KEY,

    /** The check failed in the backend and {@code on-backend-failure: allow} (or shadow mode) let the call through. */
    BACKEND_FAILURE,

    /**
     * The filter said "absent" while a write whose row may be visible had not put its key yet, and that write was
     * this call's own or outlasted the wait.
     */
    WRITE_PENDING;

    /** The tag value: lower case, as Micrometer's conventions have it. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
