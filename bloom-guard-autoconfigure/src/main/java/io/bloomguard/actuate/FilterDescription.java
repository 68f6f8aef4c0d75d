package io.bloomguard.actuate;

import io.bloomguard.actuate.BloomFiltersEndpoint.CountersDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.FilterDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.FilterHeadline;
import io.bloomguard.actuate.BloomFiltersEndpoint.HeldRebuildDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.LayoutDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.LoadDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.FeedDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.LossesDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.NearCopyDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.RedisDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.SpecDescriptor;
import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.HeldRebuild;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.bloomguard.actuate.BloomFiltersEndpoint.lower;

/**
 * What the {@code bloomfilters} endpoint shows of one filter, read from what the filter holds already (never waiting
 * on a shared store) into the endpoint's descriptor records: its headline, or its detail with its spec, layout,
 * counters, last loads, held-back rebuild and, for Redis, its generation, breakers and near copy.
 *
 * <p>Usage: {@code new FilterDescription(filter).headline()}
 */
final class FilterDescription {

    private final NamedBloomFilter filter;

    FilterDescription(NamedBloomFilter filter) {
        this.filter = filter;
    }

    /** What a dashboard shows of the filter. */
    FilterHeadline headline() {
        FilterSpec spec = filter.spec();
        FilterStats stats = filter.stats();
        long elements = filter.approximateElementCount();
        long capacity = filter.capacity();
        return new FilterHeadline(lower(spec.backendType()), lower(filter.mode()), filter.state().name(),
                filter.stateReason(), filter.stateSince().toString(), spec.sizing().expectedSize(), elements,
                ratio(elements, capacity), capacity, filter.overCapacity(), spec.sizing().errorRate(), filter.expectedFpp(),
                stats.measuredFalsePositiveRate(), stats.rejected(), stats.passed(), stats.skipped(),
                stats.falsePositives(), stats.estimatesStale());
    }

    /** The filter in detail: the {@link #headline()} fields, then the rest. */
    FilterDescriptor detail() {
        FilterHeadline headline = headline();
        RedisDescriptor redis = filter.shared().map(shared -> redis(shared.details())).orElse(null);
        return new FilterDescriptor(headline.backend(), headline.mode(), headline.state(), headline.stateReason(),
                headline.stateSince(), headline.expectedSize(), headline.approximateElements(),
                headline.capacityRatio(), headline.capacity(), headline.overCapacity(),
                headline.configuredErrorRate(), headline.expectedFalsePositiveRate(),
                headline.measuredFalsePositiveRate(), headline.rejected(), headline.passed(), headline.skipped(),
                headline.falsePositives(), headline.estimatesStale(), spec(filter.spec()), layout(), counters(),
                load(filter.history().lastPreload()), load(filter.history().lastRebuild()), heldRebuild(), redis,
                filter.feed().map(FilterDescription::feed).orElse(null));
    }

    private static FeedDescriptor feed(FeedStatus feed) {
        Duration lag = feed.lag();
        FeedStatus.Counts counts = feed.counts();
        return new FeedDescriptor(feed.description(), feed.state().name(), (lag != null) ? lag.toMillis() : null,
                feed.maxLag().toMillis(), feed.behind(), feed.keepsRejectingWhenBehind() ? "keep" : "pass",
                feed.position(), feed.failure(), text(feed.lastChange()), counts.added(), counts.removed(),
                counts.deletesKept(), counts.lost());
    }

    private static SpecDescriptor spec(FilterSpec spec) {
        return new SpecDescriptor(spec.sizing().expectedSize(), spec.sizing().errorRate(), lower(spec.backendType()), lower(spec.guard().mode()),
                lower(spec.guard().onBackendFailure()), lower(spec.writes().onAddFailure()), spec.lifecycle().preloadSql(), lower(spec.sizing().type()),
                lower(spec.sizing().growth()), spec.writes().putsOnly(), spec.lifecycle().rebuildHoldBelow());
    }

    private @Nullable HeldRebuildDescriptor heldRebuild() {
        HeldRebuild held = filter.heldRebuild();
        return (held != null) ? new HeldRebuildDescriptor(held.keysRead(), held.liveKeys(), held.at().toString(),
                held.describe(filter.name())) : null;
    }

    private LayoutDescriptor layout() {
        int shards = filter.shared().map(shared -> shared.details().shards()).orElse(1);
        long bits = filter.bitSize();
        return new LayoutDescriptor(bits, filter.byteSize(), filter.hashCount(), bits / BlockedBloomLayout.BLOCK_BITS,
                shards, filter.layerCount());
    }

    private CountersDescriptor counters() {
        FilterStats stats = filter.stats();
        Map<String, Long> byReason = new LinkedHashMap<>();
        for (SkipReason reason : SkipReason.values()) {
            byReason.put(reason.tag(), filter.counters().skippedFor(reason));
        }
        return new CountersDescriptor(stats.rejected(), stats.passed(), stats.skipped(), byReason,
                stats.falsePositives(), stats.shadowRejections(), stats.shadowFalseNegatives(),
                stats.backendErrors(), stats.puts());
    }

    private static @Nullable LoadDescriptor load(FilterHistory.@Nullable Load load) {
        return (load != null) ? new LoadDescriptor(load.started().toString(), load.keys(),
                load.duration().toMillis(), load.source(), load.failure()) : null;
    }

    private static RedisDescriptor redis(SharedFilterDetails details) {
        SharedFilterDetails.NearCopy copy = details.nearCopy();
        SharedFilterDetails.Losses losses = details.losses();
        return new RedisDescriptor(details.generation(), details.keys(), details.breakerOpen(),
                (copy != null) ? nearCopy(copy) : null, new LossesDescriptor(losses.detected(), losses.replayedKeys(),
                        losses.repairs(), losses.repairTime().toMillis(), losses.loggedKeys(),
                        text(losses.lastDetected()), text(losses.repairingSince()), losses.warning()));
    }

    private static @Nullable String text(@Nullable Object value) {
        return (value != null) ? value.toString() : null;
    }

    private static NearCopyDescriptor nearCopy(SharedFilterDetails.NearCopy copy) {
        return new NearCopyDescriptor(copy.generation(), copy.answering(),
                (copy.lastRead() != null) ? copy.lastRead().toString() : null, copy.answeredHere(),
                copy.sentToStore(), copy.absentKeys().equals("store") ? "redis" : copy.absentKeys(),
                (copy.absentKeysToStoreSince() != null) ? copy.absentKeysToStoreSince().toString() : null,
                copy.absentKeysReason(), copy.rejectedHere(), copy.bytes());
    }

    private static double ratio(long part, long whole) {
        return (whole == 0) ? 0.0 : (double) part / whole;
    }
}
