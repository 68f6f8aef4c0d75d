package io.bloomguard.actuate;

import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.HeldRebuild;
import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One filter's health: {@code UP} while it is {@code READY} (or switched off with {@code bloom-guard.enabled=false}),
 * {@link #DEGRADED} with the reasons in {@code details.reasons} while it lets calls through unchecked (loading,
 * failed, stale, mismatched, refused, unreachable), is over capacity (more keys than it is sized for: its
 * false-positive rate is above the configured one; a filter that grows is only until it has grown), or a Redis
 * circuit breaker is open, or it was switched at runtime from its configured mode to a weaker one
 * ({@code shadow} or {@code off}: it rejects no longer), or its change feed is past {@code feed.max-lag}. A degraded filter is safe
 * (calls reach the database), so {@code DEGRADED} is not {@code DOWN}: the default status order ignores it and the
 * default HTTP mapping answers 200, and it is in no probe group.
 *
 * <p>Reads only what the filter already holds (state and estimates kept by its background work): it never waits on
 * a shared store.
 *
 * <p>Usage: {@code CompositeHealthContributor.fromMap(filtersByName, BloomFilterHealthIndicator::new)}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BloomFilterHealthIndicator implements HealthIndicator {

    /** A filter that lets calls through unchecked, or lets more absent keys through than configured. */
    public static final Status DEGRADED = new Status("DEGRADED",
            "The filter lets calls reach the database that it would otherwise reject");

    private final NamedBloomFilter filter;

    public BloomFilterHealthIndicator(NamedBloomFilter filter) {
        this.filter = filter;
    }

    @Override
    public Health health() {
        FilterSpec spec = filter.spec();
        FilterState state = filter.state();
        @Nullable String stateReason = filter.stateReason();
        long elements = filter.approximateElementCount();
        List<String> reasons = new ArrayList<>();
        String stateProblem = problem(state);
        if (stateProblem != null) {
            reasons.add((stateReason != null) ? stateProblem + ": " + stateReason : stateProblem);
        }
        HeldRebuild held = filter.heldRebuild();
        if (held != null) {
            reasons.add(held.describe(filter.name()));
        }
        GuardMode mode = filter.mode();
        GuardMode configured = spec.guard().mode();
        if (mode.compareTo(configured) > 0) { // weaker than configured: GuardMode goes from enforce to off
            reasons.add("switched from " + lower(configured) + " to " + lower(mode) + " at runtime: "
                    + ((mode == GuardMode.OFF) ? "calls are not checked" : "absent keys are only counted, not rejected")
                    + " until it is switched back (the bloomfilters endpoint's mode action) or the application restarts");
        }
        if (filter.overCapacity()) {
            reasons.add("over capacity: about " + elements + " keys in a filter sized for " + filter.capacity()
                    + ", so it lets more absent keys through than error-rate " + spec.sizing().errorRate() + "; "
                    + overCapacityRemedy(filter));
        }
        FeedStatus feed = filter.feed().orElse(null);
        if (feed != null && feed.behind()) {
            reasons.add(feedBehind(feed));
        }
        Health.Builder health = Health.up();
        SharedBloomFilter shared = filter.shared().orElse(null);
        if (shared != null) {
            SharedFilterDetails details = shared.details();
            if (details.checksBreakerOpen()) {
                reasons.add("the Redis circuit breaker for checks is open: checks fail at once and go by"
                        + " on-backend-failure (" + lower(spec.guard().onBackendFailure()) + ")");
            }
            if (details.commandsBreakerOpen()) {
                reasons.add("the Redis circuit breaker for adds and other commands is open: adds fail at once and go"
                        + " by on-add-failure (" + lower(spec.writes().onAddFailure()) + ")");
            }
            String lossWarning = details.losses().warning();
            if (lossWarning != null) {
                reasons.add(lossWarning);
            }
            SharedFilterDetails.NearCopy copy = details.nearCopy();
            if (copy != null && copy.absentKeysReason() != null) {
                reasons.add("the near copy is out of step with Redis since " + copy.absentKeysToStoreSince() + " ("
                        + copy.absentKeysReason() + "): keys it lacks cost a round trip each until it is read again");
            }
            health.withDetail("breakerOpen", details.breakerOpen());
        }
        if (!reasons.isEmpty()) {
            health.status(DEGRADED).withDetail("reasons", reasons);
        }
        health.withDetail("state", state.name())
                .withDetail("stateSince", filter.stateSince().toString())
                .withDetail("backend", lower(spec.backendType()))
                .withDetail("mode", lower(mode))
                .withDetail("approximateElements", elements)
                .withDetail("expectedSize", spec.sizing().expectedSize())
                .withDetail("capacity", filter.capacity());
        if (mode != configured) {
            health.withDetail("configuredMode", lower(configured));
        }
        if (stateReason != null) {
            health.withDetail("stateReason", stateReason);
        }
        if (filter.stats().estimatesStale()) {
            health.withDetail("estimatesStale", true);
        }
        if (feed != null) {
            Duration lag = feed.lag();
            health.withDetail("feed", feed.state().name()).withDetail("feedLag", (lag != null) ? lag.toString() : "unknown");
        }
        return health.build();
    }

    /** Why a feed that is behind matters, and what the filter does meanwhile. */
    private static String feedBehind(FeedStatus feed) {
        Duration lag = feed.lag();
        String how = (lag == null) ? "has not caught up since it started" : "is " + lag + " behind";
        String failure = feed.failure();
        return "its change feed (" + feed.description() + ") " + how + ", past max-lag " + feed.maxLag()
                + ((failure != null) ? " (last failure: " + failure + ")" : "") + ": "
                + (feed.keepsRejectingWhenBehind()
                        ? "rows written elsewhere meanwhile are rejected (when-behind: keep)"
                        : "calls pass through until it catches up (when-behind: pass)");
    }

    /** What ends being over capacity, by the filter's growth policy. */
    private static String overCapacityRemedy(NamedBloomFilter filter) {
        if (filter.growing()) {
            return "it is being rebuilt larger from its key source (growth: rebuild)";
        }
        return switch (filter.spec().sizing().growth()) {
            case NONE -> "raise expected-size and rebuild it, or set growth: rebuild";
            case REBUILD -> "growth: rebuild cannot rebuild it larger (the log says why): raise expected-size";
            // Nothing logs it: the only thing that stops a scalable filter growing is the size of its next layer.
            case SCALE -> "growth: scale cannot add a larger layer (the next would exceed what a filter may hold: 16"
                    + " GiB in the heap, one 512 MiB string in Redis): raise error-rate, or use growth: rebuild"
                    + " (with redis.shards on redis)";
        };
    }

    /** What a state that is not {@code READY} means for calls; {@code null} when it is nothing to act on. */
    private @Nullable String problem(FilterState state) {
        return switch (state) {
            case READY, DISABLED -> null;
            case LOADING -> "LOADING: its keys are being loaded; calls pass through until it is ready";
            case FAILED -> "FAILED: its preload failed, or a key did not reach it; calls pass through until it has"
                    + " been rebuilt from its key source (which follows on its own where it has one)";
            case STALE -> "STALE: adds did not reach the store or were lost; calls pass through until they are"
                    + " replayed or it is rebuilt";
            case MISMATCHED -> "MISMATCHED: the stored filter was built with another size than configured; calls pass"
                    + " through until it is rebuilt";
            case ACCESS_DENIED -> "ACCESS_DENIED: the store refuses this instance; calls pass through";
            case UNREACHABLE -> "UNREACHABLE: the store has not been reached since startup; calls pass through";
        };
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
