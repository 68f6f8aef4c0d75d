package io.bloomguard.metrics;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.FilterCounters;
import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds every configured filter's meters, each tagged {@code filter=<name>}:
 *
 * <ul>
 * <li>{@code bloomguard.checks} (function counter): guarded calls, tagged {@code outcome} ({@code rejected},
 * {@code passed}, {@code skipped}) and {@code reason} ({@code none} for rejected and passed; {@code not_ready},
 * {@code mode_off}, {@code no_key}, {@code backend_failure}, {@code write_pending} for skipped).</li>
 * <li>{@code bloomguard.false.positives}, {@code bloomguard.shadow.rejections},
 * {@code bloomguard.shadow.false.negatives}, {@code bloomguard.backend.errors}, {@code bloomguard.puts} (function
 * counters): as in {@link io.bloomguard.registry.FilterStats}.</li>
 * <li>{@code bloomguard.elements}, {@code bloomguard.capacity.ratio} (elements / capacity: the expected size, more
 * once the filter has grown), {@code bloomguard.over.capacity} (1 while elements exceed the capacity, else 0),
 * {@code bloomguard.rebuild.held} (1 while a rebuild that read far fewer keys than the filter holds waits for an
 * operator, else 0), {@code bloomguard.fill.ratio} (set bits / bits), {@code bloomguard.fpp.expected}, {@code bloomguard.fpp.measured},
 * {@code bloomguard.fpp.configured} (gauges).</li>
 * <li>{@code bloomguard.state} (gauge per state, tagged {@code state}, lower case): 1 for the filter's current
 * state, 0 for the others.</li>
 * <li>{@code bloomguard.load} (timer) and {@code bloomguard.load.keys} (distribution summary): each preload and
 * rebuild, tagged {@code kind} ({@code preload}, {@code rebuild}) and {@code outcome} ({@code success},
 * {@code failure}).</li>
 * <li>Redis filters only: {@code bloomguard.redis.check} (timer, no percentiles unless configured): single-key
 * checks sent to Redis; {@code bloomguard.redis.breaker.open} (gauge, tagged {@code breaker}: {@code checks},
 * {@code commands}): 1 while the backend's breaker is open. The breakers are the backend's, so every redis filter
 * reports the same two values; {@code bloomguard.redis.adds.buffered} (gauge): adds this instance could not write to
 * Redis yet, kept for replay; {@code bloomguard.redis.losses} (function counter): losses of adds Redis had acknowledged
 * that this instance found (a failover, a restart from an older file); {@code bloomguard.redis.replayed.keys}
 * (function counter): keys it wrote again from its replay log; {@code bloomguard.redis.repair} (function timer):
 * repairs, from finding a loss to the filter trusted again; {@code bloomguard.redis.replay.log.keys} (gauge): keys
 * the replay log holds; {@code bloomguard.redis.replicas.unconfirmed} (function counter): batches of adds
 * fewer replicas confirmed than {@code bloom-guard.redis.wait-for-replicas} (0 while it is 0).</li>
 * <li>Filters with a change feed only: {@code bloomguard.feed.lag} (timer, p50 and p99 published): each change from
 * its commit (or, polled over JDBC, its watermark) to its key in the filter; {@code bloomguard.feed.behind} (gauge,
 * seconds): since the moment before which every committed change is in the filter (NaN until the feed first caught
 * up), and {@code bloomguard.feed.max.lag} (gauge, seconds): {@code feed.max-lag}, past which the filter counts as
 * behind; {@code bloomguard.feed.changes} (function counter,
 * tagged {@code change}: {@code added}, {@code removed}, {@code delete_kept}); {@code bloomguard.feed.lost} (function
 * counter): positions lost, each followed by a rebuild.</li>
 * <li>Local filters only: {@code bloomguard.local.size} (gauge, bytes): the heap the filter's bits take.</li>
 * <li>{@code bloomguard.load.last.success.time} (gauge, seconds since the epoch): when the last preload or rebuild
 * that completed ended; NaN before the first.</li>
 * <li>Redis filters with a near copy only: {@code bloomguard.redis.near.copy.checks} (function counter), checks this
 * instance made, tagged {@code answered.by}: {@code near_copy} (the copy held the key: no round trip),
 * {@code barrier} (the copy, in step, lacked it: "absent" after a barrier) or {@code redis} (the copy lacked it, or
 * was not read yet); {@code bloomguard.redis.near.copy.barrier} (gauge): 1 while keys the copy lacks are answered
 * after a barrier, 0 while they go to Redis; {@code bloomguard.redis.near.copy.size} (gauge, bytes): the heap the copy
 * takes.</li>
 * </ul>
 *
 * <p>Nothing here is on a guarded call's path: the counters read the filters' own {@code LongAdder}s and the gauges
 * read values that never wait on Redis (a redis filter's size is the one its maintenance last read). A local
 * filter's values are computed at each scrape and not cached: it counts its set bits as it sets them, and the model
 * behind {@code fpp.expected} costs some 10 µs whatever the filter's size. Every meter holds its filter weakly.
 *
 * <p>Usage: {@code new BloomFilterMetrics(registry).bindTo(meterRegistry);} (Spring Boot binds the bean itself.)
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BloomFilterMetrics implements MeterBinder {

    private static final String PREFIX = "bloomguard.";

    private final BloomFilterRegistry filters;

    public BloomFilterMetrics(BloomFilterRegistry filters) {
        this.filters = filters;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (NamedBloomFilter filter : filters.all()) {
            bindTo(registry, filter);
        }
    }

    private void bindTo(MeterRegistry registry, NamedBloomFilter filter) {
        Tags tags = Tags.of("filter", filter.name());
        bindChecks(registry, filter, tags);
        bindGauges(registry, filter, tags);
        bindStates(registry, filter, tags);
        new LoadMeters(registry, tags).listenTo(filter.history());
        bindLastSuccess(registry, filter, tags);
        filter.shared().ifPresentOrElse(shared -> bindRedis(registry, shared, tags),
                () -> bindLocal(registry, filter, tags));
        filter.feed().ifPresent(feed -> bindFeed(registry, feed, tags));
    }

    private static void bindFeed(MeterRegistry registry, FeedStatus feed, Tags tags) {
        Timer lag = Timer.builder(PREFIX + "feed.lag")
                .description("Time from a change's commit (or stamp) to its key in the filter")
                .publishPercentiles(0.5, 0.99).tags(tags).register(registry);
        feed.onChangeLag(lag::record);
        Gauge.builder(PREFIX + "feed.behind", feed, status -> {
            Duration behind = status.lag();
            return (behind == null) ? Double.NaN : behind.toNanos() / 1e9;
        }).description("Seconds since the moment before which every committed change is in the filter")
                .baseUnit("seconds").tags(tags).strongReference(false).register(registry);
        Gauge.builder(PREFIX + "feed.max.lag", feed, status -> status.maxLag().toNanos() / 1e9)
                .description("feed.max-lag: past it the filter counts as behind").baseUnit("seconds").tags(tags)
                .strongReference(false).register(registry);
        FunctionCounter.builder(PREFIX + "feed.changes", feed, status -> status.counts().added())
                .description("Changes the feed applied").tags(tags).tag("change", "added").register(registry);
        FunctionCounter.builder(PREFIX + "feed.changes", feed, status -> status.counts().removed())
                .description("Changes the feed applied").tags(tags).tag("change", "removed").register(registry);
        FunctionCounter.builder(PREFIX + "feed.changes", feed, status -> status.counts().deletesKept())
                .description("Changes the feed applied").tags(tags).tag("change", "delete_kept").register(registry);
        FunctionCounter.builder(PREFIX + "feed.lost", feed, status -> status.counts().lost())
                .description("Times the feed lost its position and the filter was rebuilt").tags(tags)
                .register(registry);
    }

    private static void bindChecks(MeterRegistry registry, NamedBloomFilter filter, Tags tags) {
        checks(registry, filter, tags, "rejected", "none", f -> f.counters().snapshot().rejected());
        checks(registry, filter, tags, "passed", "none", f -> f.counters().snapshot().passed());
        for (SkipReason reason : SkipReason.values()) {
            checks(registry, filter, tags, "skipped", reason.tag(), f -> f.counters().skippedFor(reason));
        }
        counter(registry, filter, tags, "false.positives", "Calls let through whose method found nothing",
                f -> f.counters().snapshot().falsePositives());
        counter(registry, filter, tags, "shadow.rejections", "Calls shadow mode would have rejected",
                f -> f.counters().snapshot().shadowRejections());
        counter(registry, filter, tags, "shadow.false.negatives",
                "Calls shadow mode would have rejected whose method found a value: keys missing from the filter",
                f -> f.counters().snapshot().shadowFalseNegatives());
        counter(registry, filter, tags, "backend.errors", "Checks and puts that failed in the backend",
                f -> f.counters().snapshot().backendErrors());
        counter(registry, filter, tags, "puts", "Keys added through @BloomPut or the API",
                f -> f.counters().snapshot().puts());
    }

    private static void checks(MeterRegistry registry, NamedBloomFilter filter, Tags tags, String outcome,
            String reason, ToDoubleFunction<NamedBloomFilter> count) {
        FunctionCounter.builder(PREFIX + "checks", filter, count)
                .description("Guarded calls, by what the filter did with them")
                .tags(tags).tag("outcome", outcome).tag("reason", reason)
                .register(registry);
    }

    private static void counter(MeterRegistry registry, NamedBloomFilter filter, Tags tags, String name,
            String description, ToDoubleFunction<NamedBloomFilter> count) {
        FunctionCounter.builder(PREFIX + name, filter, count).description(description).tags(tags).register(registry);
    }

    private static void bindGauges(MeterRegistry registry, NamedBloomFilter filter, Tags tags) {
        gauge(registry, filter, tags, "elements", "Keys estimated from the bits set",
                NamedBloomFilter::approximateElementCount);
        gauge(registry, filter, tags, "capacity.ratio", "Estimated keys over the keys the filter holds at its error rate",
                f -> (double) f.approximateElementCount() / f.capacity());
        gauge(registry, filter, tags, "over.capacity",
                "1 while the filter holds more keys than it is sized for, so lets more absent keys through than its"
                        + " error rate; else 0",
                f -> f.overCapacity() ? 1 : 0);
        gauge(registry, filter, tags, "rebuild.held",
                "1 while a rebuild that read far fewer keys than the filter holds waits for an operator to confirm it;"
                        + " else 0",
                f -> (f.heldRebuild() != null) ? 1 : 0);
        gauge(registry, filter, tags, "fill.ratio", "Set bits over bits", BloomFilterMetrics::fillRatio);
        gauge(registry, filter, tags, "fpp.expected", "False-positive probability at the estimated keys",
                NamedBloomFilter::expectedFpp);
        gauge(registry, filter, tags, "fpp.measured",
                "Measured false-positive rate: calls let through that found nothing, of all absent keys checked",
                f -> f.counters().snapshot().measuredFalsePositiveRate());
        gauge(registry, filter, tags, "fpp.configured", "Configured error rate at the expected size",
                f -> f.spec().sizing().errorRate());
    }

    private static void gauge(MeterRegistry registry, NamedBloomFilter filter, Tags tags, String name,
            String description, ToDoubleFunction<NamedBloomFilter> value) {
        Gauge.builder(PREFIX + name, filter, value).description(description).tags(tags).register(registry);
    }

    private static void bindStates(MeterRegistry registry, NamedBloomFilter filter, Tags tags) {
        for (FilterState state : FilterState.values()) {
            Gauge.builder(PREFIX + "state", filter, f -> (f.state() == state) ? 1 : 0)
                    .description("1 for the filter's current state, 0 for the others")
                    .tags(tags).tag("state", state.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
    }

    /**
     * When the last load completed, in seconds since the epoch, rather than its age: the value changes only when a
     * load completes, a scrape made late cannot skew it, and {@code time() - x} gives the age in PromQL (Prometheus'
     * advice for "time since", like Micrometer's {@code process.start.time}). NaN before the first: this instance
     * never loaded the filter (a redis filter another instance loaded, a filter filled by puts alone).
     */
    private static void bindLastSuccess(MeterRegistry registry, NamedBloomFilter filter, Tags tags) {
        Gauge.builder(PREFIX + "load.last.success.time", filter, f -> {
            FilterHistory.Load last = f.history().lastSuccess();
            return (last != null) ? last.ended().toEpochMilli() / 1000.0 : Double.NaN;
        }).description("When the last preload or rebuild that completed ended, in seconds since the epoch")
                .baseUnit("seconds").tags(tags).register(registry);
    }

    private static void bindLocal(MeterRegistry registry, NamedBloomFilter filter, Tags tags) {
        Gauge.builder(PREFIX + "local.size", filter, NamedBloomFilter::byteSize)
                .description("Heap the local filter's bits take (a rebuild builds a second copy while it runs)")
                .baseUnit("bytes").tags(tags).register(registry);
    }

    private static void bindRedis(MeterRegistry registry, SharedBloomFilter redis, Tags tags) {
        Timer checks = Timer.builder(PREFIX + "redis.check").description("Single-key checks sent to Redis")
                .tags(tags).register(registry);
        redis.onCheckLatency(nanos -> checks.record(nanos, TimeUnit.NANOSECONDS));
        breaker(registry, redis, tags, "checks", shared -> shared.details().checksBreakerOpen());
        breaker(registry, redis, tags, "commands", shared -> shared.details().commandsBreakerOpen());
        Gauge.builder(PREFIX + "redis.adds.buffered", redis, SharedBloomFilter::pendingAdds)
                .description("Adds this instance could not write to Redis yet, kept for replay")
                .tags(tags).register(registry);
        bindLosses(registry, redis, tags);
        FunctionCounter.builder(PREFIX + "redis.replicas.unconfirmed", redis,
                SharedBloomFilter::unconfirmedReplicaBatches)
                .description("Batches of adds fewer replicas confirmed than bloom-guard.redis.wait-for-replicas")
                .tags(tags).register(registry);
        if (redis.details().nearCopy() != null) {
            nearCopyChecks(registry, redis, tags, "near_copy", SharedFilterDetails.NearCopy::answeredHere);
            nearCopyChecks(registry, redis, tags, "redis", SharedFilterDetails.NearCopy::sentToStore);
            nearCopyChecks(registry, redis, tags, "barrier", SharedFilterDetails.NearCopy::rejectedHere);
            Gauge.builder(PREFIX + "redis.near.copy.barrier", redis, shared -> {
                SharedFilterDetails.NearCopy copy = shared.details().nearCopy();
                return (copy != null && !copy.absentKeys().equals("store")) ? 1 : 0;
            }).description("1 while the near copy answers keys it lacks (after a barrier, or under a lease), 0 while"
                    + " they go to Redis")
                    .tags(tags).register(registry);
            Gauge.builder(PREFIX + "redis.near.copy.size", redis, shared -> {
                SharedFilterDetails.NearCopy copy = shared.details().nearCopy();
                return (copy != null) ? copy.bytes() : 0;
            }).description("Heap the near copy takes").baseUnit("bytes").tags(tags).register(registry);
        }
    }

    /** Adds Redis acknowledged and lost (a failover, a restore from an older file), and their repair. */
    private static void bindLosses(MeterRegistry registry, SharedBloomFilter redis, Tags tags) {
        FunctionCounter.builder(PREFIX + "redis.losses", redis, shared -> shared.details().losses().detected())
                .description("Losses of adds Redis had acknowledged (a failover, a restart from an older file) found")
                .tags(tags).register(registry);
        FunctionCounter.builder(PREFIX + "redis.replayed.keys", redis,
                shared -> shared.details().losses().replayedKeys())
                .description("Keys written again from the replay log after Redis lost them")
                .tags(tags).register(registry);
        FunctionTimer.builder(PREFIX + "redis.repair", redis, shared -> shared.details().losses().repairs(),
                shared -> shared.details().losses().repairTime().toNanos(), TimeUnit.NANOSECONDS)
                .description("Repairs after a loss: from finding it to the filter trusted again")
                .tags(tags).register(registry);
        Gauge.builder(PREFIX + "redis.replay.log.keys", redis, shared -> shared.details().losses().loggedKeys())
                .description("Keys of this instance's latest adds kept to write again should Redis lose them")
                .tags(tags).register(registry);
    }

    private static void nearCopyChecks(MeterRegistry registry, SharedBloomFilter redis, Tags tags, String answeredBy,
            ToLongFunction<SharedFilterDetails.NearCopy> count) {
        FunctionCounter.builder(PREFIX + "redis.near.copy.checks", redis, shared -> {
            SharedFilterDetails.NearCopy copy = shared.details().nearCopy();
            return (copy != null) ? count.applyAsLong(copy) : 0;
        }).description("Checks of a redis filter with a near copy, by what answered them: the copy, a barrier, or Redis")
                .tags(tags).tag("answered.by", answeredBy)
                .register(registry);
    }

    private static void breaker(MeterRegistry registry, SharedBloomFilter redis, Tags tags, String breaker,
            java.util.function.Predicate<SharedBloomFilter> open) {
        Gauge.builder(PREFIX + "redis.breaker.open", redis, r -> open.test(r) ? 1 : 0)
                .description("1 while the Redis circuit breaker is open and its calls fail at once, else 0")
                .tags(tags).tag("breaker", breaker)
                .register(registry);
    }

    static double fillRatio(NamedBloomFilter filter) {
        return filter.fillRatio();
    }

    /** The load meters of one filter, told of each load once, whether it ended before binding or after. */
    private static final class LoadMeters {

        private final MeterRegistry registry;
        private final Tags tags;
        private final Map<FilterHistory.LoadKind, FilterHistory.@Nullable Load> recorded =
                new EnumMap<>(FilterHistory.LoadKind.class);

        LoadMeters(MeterRegistry registry, Tags tags) {
            this.registry = registry;
            this.tags = tags;
            for (FilterHistory.LoadKind kind : FilterHistory.LoadKind.values()) {
                for (String outcome : new String[] { "success", "failure" }) {
                    timer(kind, outcome);
                    keys(kind, outcome);
                }
            }
        }

        /** Listens first, then records what ended before: a load that ends in between is recorded once. */
        void listenTo(FilterHistory history) {
            history.onLoad(this::record);
            FilterHistory.Load preload = history.lastPreload();
            FilterHistory.Load rebuild = history.lastRebuild();
            if (preload != null) {
                record(preload);
            }
            if (rebuild != null) {
                record(rebuild);
            }
        }

        synchronized void record(FilterHistory.Load load) {
            if (recorded.get(load.kind()) == load) {
                return;
            }
            recorded.put(load.kind(), load);
            String outcome = load.succeeded() ? "success" : "failure";
            timer(load.kind(), outcome).record(load.duration());
            keys(load.kind(), outcome).record(load.keys());
        }

        private Timer timer(FilterHistory.LoadKind kind, String outcome) {
            return Timer.builder(PREFIX + "load").description("Loads of the filter from its key source")
                    .tags(tags).tag("kind", kind.name().toLowerCase(Locale.ROOT)).tag("outcome", outcome)
                    .register(registry);
        }

        private DistributionSummary keys(FilterHistory.LoadKind kind, String outcome) {
            return DistributionSummary.builder(PREFIX + "load.keys").description("Keys read by each load")
                    .tags(tags).tag("kind", kind.name().toLowerCase(Locale.ROOT))
                    .tag("outcome", outcome)
                    .register(registry);
        }
    }
}
