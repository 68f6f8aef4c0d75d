package io.bloomguard.observation;

import io.bloomguard.guard.CheckObserver;
import io.bloomguard.guard.CheckOutcome;
import io.bloomguard.registry.SkipReason;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Makes each check the guard is asked for (or each one made inside another observation) a
 * {@link BloomGuardObservation#CHECK} observation in {@code registry}: a span in a trace, a {@code bloomguard.check}
 * timer by filter with Spring Boot's metrics. A registry with no handlers (such as {@link ObservationRegistry#NOOP}),
 * or a check outside any observation when only those inside one are observed, costs the guard one call and nothing
 * made.
 *
 * <p>Usage: {@code new BloomGuardInterceptor(source, provider)} with a provider of
 * {@code new ObservationCheckObserver(registry, null, false)}; the auto-configuration does this when
 * {@code bloom-guard.observations.checks} is {@code on} or {@code under-parent}.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class ObservationCheckObserver implements CheckObserver {

    private static final BloomGuardObservationConvention DEFAULT_CONVENTION = new DefaultBloomGuardObservationConvention();

    private final ObservationRegistry registry;
    private final @Nullable BloomGuardObservationConvention convention;
    private final boolean onlyUnderParent;

    /**
     * @param convention      the application's convention, or {@code null} for the default one (or a global one)
     * @param onlyUnderParent whether a check is observed only when made inside another observation: the one given
     *                        to {@link #start}, or else the registry's current one on the calling thread
     */
    public ObservationCheckObserver(ObservationRegistry registry, @Nullable BloomGuardObservationConvention convention,
            boolean onlyUnderParent) {
        this.registry = registry;
        this.convention = convention;
        this.onlyUnderParent = onlyUnderParent;
    }

    /** Observes every check. */
    public ObservationCheckObserver(ObservationRegistry registry, @Nullable BloomGuardObservationConvention convention) {
        this(registry, convention, false);
    }

    @Override
    public @Nullable Check start(String filter, @Nullable Object parent) {
        if (registry.isNoop()) {
            return null;
        }
        if (onlyUnderParent && !(parent instanceof Observation) && registry.getCurrentObservation() == null) {
            return null;
        }
        BloomGuardObservationContext context = new BloomGuardObservationContext(filter);
        Observation observation = BloomGuardObservation.CHECK.observation(convention, DEFAULT_CONVENTION,
                () -> context, registry);
        if (observation.isNoop()) { // turned off by an ObservationPredicate
            return null;
        }
        if (parent instanceof Observation parentObservation) {
            observation.parentObservation(parentObservation);
        }
        return new ObservedCheck(observation.start(), context);
    }

    /** A started observation, stopped once: by the guard's decision or a cancellation, whichever comes first. */
    private static final class ObservedCheck implements Check {

        private final Observation observation;
        private final BloomGuardObservationContext context;
        private final AtomicBoolean stopped = new AtomicBoolean();

        ObservedCheck(Observation observation, BloomGuardObservationContext context) {
            this.observation = observation;
            this.context = context;
        }

        @Override
        public void decided(CheckOutcome outcome, @Nullable SkipReason reason) {
            if (stopped.compareAndSet(false, true)) {
                context.setOutcome(outcome);
                context.setReason(reason);
                observation.stop();
            }
        }

        @Override
        public void error(Throwable failure) {
            observation.error(failure);
        }

        @Override
        public void cancelled() {
            if (stopped.compareAndSet(false, true)) {
                context.setCancelled();
                observation.stop();
            }
        }
    }
}
