package io.bloomguard.guard;

import io.bloomguard.registry.SkipReason;
import org.jspecify.annotations.Nullable;

/**
 * Watches the guard's checks, one at a time: told when a call's check starts and what the guard then did with the
 * call. The guard has none unless one is given, and then asks nothing of it; the Micrometer Observation one is
 * {@code io.bloomguard.observation.ObservationCheckObserver}.
 *
 * <p>Usage: {@code new BloomGuardInterceptor(source, observerProvider)}; the auto-configuration gives the guard the
 * application's {@code CheckObserver} bean, if any.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface CheckObserver {

    /**
     * Starts watching the check of a call guarded by {@code filter}.
     *
     * @param filter the filter's name
     * @param parent what the check is part of, when the guard knows it: the observation a reactive subscriber's
     *               context holds under Micrometer's {@code ObservationThreadLocalAccessor.KEY}; when {@code null},
     *               the observer finds it on the calling thread
     * @return the check to tell the outcome to, or {@code null} when this check is not watched
     */
    @Nullable Check start(String filter, @Nullable Object parent);

    /** One call's check, being watched; told its outcome once. */
    interface Check {

        /**
         * What the guard did with the call.
         *
         * @param reason why the filter did not decide it ({@link CheckOutcome#SKIPPED}, and a rejection or failure
         *               that {@code on-backend-failure} decided), or {@code null}
         */
        void decided(CheckOutcome outcome, @Nullable SkipReason reason);

        /** The check failed with {@code failure}; followed by {@link #decided}. */
        void error(Throwable failure);

        /** A reactive subscriber cancelled before the guard had decided. */
        void cancelled();
    }
}
