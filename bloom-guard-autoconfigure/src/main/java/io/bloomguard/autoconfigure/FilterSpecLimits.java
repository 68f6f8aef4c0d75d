package io.bloomguard.autoconfigure;

import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.RedisFilterKind;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * What a valid {@link FilterSpec} must also fit, given the backends and the heap this application has: a local
 * filter's and a near copy's 16 GiB, a layer's 512 MiB Redis string, the heap for each filter and for all of them
 * together; and a rebuild schedule that parses. Checked for the specs the properties give and again for the ones
 * a {@link io.bloomguard.registry.FilterSpecCustomizer} changed.
 */
final class FilterSpecLimits {

    private FilterSpecLimits() {
    }

    /** The limits of one filter; {@code enabled} false skips the heap, which a switched-off filter does not use. */
    static void check(FilterSpec spec, boolean enabled) {
        if (inServer(spec)) {
            return; // the server's own filter: nothing of it in this JVM, and the server sizes and scales it
        }
        String prefix = "bloom-guard.filters." + spec.name();
        FilterSpec.Sizing sizing = spec.sizing();
        long expectedSize = sizing.expectedSize();
        double errorRate = sizing.errorRate();
        FilterSizing configured = sizing.configured();
        // What is allocated at startup: a scalable filter's first layer is sized for a lower error rate.
        FilterSizing allocated = allocated(spec);
        if (sizing.type() == FilterType.CUCKOO) {
            checkCuckoo(prefix, sizing);
        }
        long bytes = bytes(spec);
        long maxBlocks = (sizing.type() == FilterType.COUNTING) ? LocalCountingFilter.MAX_BLOCKS
                : LocalBloomFilter.MAX_BLOCKS;
        if (spec.backendType() == BackendType.LOCAL && allocated.blockCount() > maxBlocks) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                    "a local filter holds at most 16 GiB, and " + expectedSize + " keys at error rate " + errorRate
                            + " need " + bytes / (1L << 30) + " GiB" + (sizing.type() == FilterType.COUNTING
                                    ? " of counters" : "") + "; lower it, raise error-rate,"
                            + " or use backend: redis with redis.shards");
        }
        boolean nearCopy = nearCopy(spec);
        if (nearCopy && configured.blockCount() > maxBlocks) {
            String value = ((FilterSpec.Redis) spec.backend()).nearCopy().name().toLowerCase(java.util.Locale.ROOT);
            throw new InvalidBloomGuardPropertyException(prefix + ".redis.near-copy", value,
                    "a near copy is held in each instance's heap, at most 16 GiB, and " + expectedSize
                            + " keys at error rate " + errorRate + " need " + bytes / (1L << 30)
                            + " GiB; set it to off, lower expected-size or raise error-rate");
        }
        if (spec.backendType() == BackendType.REDIS && sizing.growth() == GrowthPolicy.SCALE
                && allocated.blockCount() > RedisFilterBackend.MAX_BLOCKS_PER_KEY) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize, "a filter that grows"
                    + " by layers (growth: scale) keeps each layer in one Redis string of at most 512 MiB, and its"
                    + " first layer for " + expectedSize + " keys at error rate " + errorRate + " needs "
                    + allocated.byteSize() / (1 << 20) + " MiB; lower it, or use growth: rebuild with redis.shards");
        }
        long heap = Runtime.getRuntime().maxMemory();
        // A redis filter is built in this JVM before it is uploaded, so it needs the heap too, beside its near
        // copy if it keeps one. A switched-off filter allocates nothing, and must not stop an application that
        // was switched off to save memory.
        long needed = nearCopy ? 2 * bytes : bytes;
        if (enabled && needed > heap) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", expectedSize,
                    "a filter of " + expectedSize + " keys at error rate " + errorRate + " needs "
                            + bytes / (1 << 20) + " MiB" + (nearCopy ? " twice (its near copy, and"
                            + " the bits of a rebuild)" : "") + ", more than the heap (" + heap / (1 << 20)
                            + " MiB); lower it, raise error-rate" + (nearCopy ? ", turn redis.near-copy off" : "")
                            + " or give the JVM more memory");
        }
    }

    /** A cuckoo filter's table: at most {@value CuckooLayout#MAX_BUCKETS} buckets. */
    private static void checkCuckoo(String prefix, FilterSpec.Sizing sizing) {
        try {
            CuckooLayout.of(sizing.expectedSize(), sizing.errorRate());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidBloomGuardPropertyException(prefix + ".expected-size", sizing.expectedSize(),
                    "at most " + (long) (CuckooLayout.MAX_BUCKETS * CuckooLayout.BUCKET_SLOTS * CuckooLayout.MAX_LOAD)
                            + " keys for a local cuckoo filter (" + ex.getMessage() + "); lower it, or use"
                            + " type: counting with backend: redis and redis.shards");
        }
    }

    /** What the filters need of the heap together, each one having fit alone. */
    static void checkTogether(List<FilterSpec> specs) {
        HeapBudget budget = new HeapBudget();
        for (FilterSpec spec : specs) {
            if (!inServer(spec)) {
                budget.add(spec.name(), spec.backendType(), bytes(spec), nearCopy(spec));
            }
        }
        budget.check(Runtime.getRuntime().maxMemory());
    }

    /** A rebuild schedule, refused naming the property it came from unless its cron and zone parse. */
    static void checkSchedule(String cronProperty, @Nullable String cron, String zoneProperty,
            @Nullable String zone) {
        checkCron(cronProperty, cron);
        checkZone(zoneProperty, zone);
    }

    private static FilterSizing allocated(FilterSpec spec) {
        FilterSpec.Sizing sizing = spec.sizing();
        return (sizing.growth() == GrowthPolicy.SCALE)
                ? FilterSizing.of(sizing.expectedSize(),
                        ScalableSizing.of(sizing.expectedSize(), sizing.errorRate()).layerErrorRate(0))
                : sizing.configured();
    }

    private static long bytes(FilterSpec spec) {
        FilterSizing allocated = allocated(spec);
        return spec.sizing().type().byteSize(allocated);
    }

    /** Whether the filter is the server's own ({@code redis.kind: native}), built inside Redis. */
    private static boolean inServer(FilterSpec spec) {
        return spec.backend() instanceof FilterSpec.Redis redis && redis.kind() == RedisFilterKind.NATIVE;
    }

    private static boolean nearCopy(FilterSpec spec) {
        return spec.backend() instanceof FilterSpec.Redis redis && redis.nearCopy().keepsCopy();
    }

    private static void checkCron(String property, @Nullable String cron) {
        if (cron == null) {
            return;
        }
        try {
            org.springframework.scheduling.support.CronExpression.parse(cron);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidBloomGuardPropertyException(property, cron, "a cron expression of six fields (second"
                    + " minute hour day-of-month month day-of-week), e.g. \"0 0 4 * * *\" for 4 a.m. daily, or a macro"
                    + " such as @daily (" + ex.getMessage() + ")");
        }
    }

    private static void checkZone(String property, @Nullable String zone) {
        if (zone == null) {
            return;
        }
        try {
            java.time.ZoneId.of(zone);
        }
        catch (java.time.DateTimeException ex) {
            throw new InvalidBloomGuardPropertyException(property, zone, "a time zone ID such as UTC or Europe/Paris");
        }
    }

    /**
     * What the filters need of the heap together, where each alone fits: a local filter's bits stay there for good,
     * and so does a redis filter's near copy; a redis filter's bits are built there before they are uploaded, one
     * filter at a time at startup (background rebuilds after Redis lost its data may overlap; docs/properties.md says
     * so). More than the heap is an OutOfMemoryError part way through startup, so it is refused with the sizes
     * instead.
     */
    private static final class HeapBudget {

        private final List<String> local = new ArrayList<>();
        private final List<String> nearCopies = new ArrayList<>();
        private long residentBytes;
        private String largestRedis;
        private long largestRedisBytes;

        void add(String name, BackendType backend, long bytes, boolean nearCopy) {
            String sized = name + " (" + mib(bytes) + " MiB)";
            if (backend == BackendType.LOCAL) {
                local.add(sized);
                residentBytes += bytes;
                return;
            }
            if (nearCopy) {
                nearCopies.add(sized);
                residentBytes += bytes;
            }
            if (bytes > largestRedisBytes) {
                largestRedis = sized;
                largestRedisBytes = bytes;
            }
        }

        void check(long heap) {
            long needed = residentBytes + largestRedisBytes;
            if (needed <= heap) {
                return;
            }
            List<String> parts = new ArrayList<>();
            if (!local.isEmpty()) {
                parts.add("the local filters " + String.join(", ", local));
            }
            if (!nearCopies.isEmpty()) {
                parts.add("the near copies of " + String.join(", ", nearCopies));
            }
            if (largestRedis != null) {
                parts.add("the largest redis filter while it is built, " + largestRedis);
            }
            List<String> resident = new ArrayList<>(local);
            resident.addAll(nearCopies);
            throw new InvalidBloomGuardPropertyException("bloom-guard.filters", String.join(", ", resident),
                    String.join(" and ", parts) + ", need " + mib(needed) + " MiB together, more than the heap ("
                            + mib(heap) + " MiB); lower their expected-size, raise their error-rate, move one to"
                            + " backend: redis" + (nearCopies.isEmpty() ? "" : ", turn a redis.near-copy off")
                            + ", or give the JVM more memory");
        }

        private static long mib(long bytes) {
            return bytes / (1 << 20);
        }
    }
}
