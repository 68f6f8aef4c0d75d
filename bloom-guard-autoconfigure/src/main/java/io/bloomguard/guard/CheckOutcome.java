package io.bloomguard.guard;

import java.util.Locale;

/**
 * What the guard did with a call it was asked to check, as a {@link CheckObserver} is told: the outcomes of the
 * {@code bloomguard.checks} meter, and two that meter does not count as checks (a shadow rejection, a failed check
 * that was thrown).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public enum CheckOutcome {

    /** The method did not run: the filter said the key is absent, or its backend failed and the policy rejects. */
    REJECTED,

    /** The filter said the key might exist, and the method ran. */
    PASSED,

    /** Shadow mode: the filter said the key is absent, and the method ran all the same. */
    SHADOW_REJECTED,

    /** The filter did not decide the call, which went through: the reason says why. */
    SKIPPED,

    /** The backend failed and {@code on-backend-failure: throw} passed the failure on to the caller. */
    FAILED;

    /** The tag value: lower case, as Micrometer's conventions have it. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
