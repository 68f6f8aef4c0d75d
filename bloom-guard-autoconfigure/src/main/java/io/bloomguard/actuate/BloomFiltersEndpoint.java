package io.bloomguard.actuate;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.security.Principal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code bloomfilters} endpoint: every filter's headline (state, mode, fill, error rates, counters), one filter in
 * detail (its spec, layout, counters by skip reason, last preload and rebuild, and for Redis its live generation and
 * breakers; never the hash seed), a rebuild it started, and write operations on one filter: {@code rebuild} (started
 * in the background: the answer is a handle to poll), {@code test} (whether a key might be in it) and {@code mode}
 * (switch the guard to {@code enforce}, {@code shadow} or {@code off} until restart). Everything is read from what the
 * filters hold already: no operation but the writes waits on a shared store.
 *
 * <p>Read-only unless the application opts in with {@code management.endpoint.bloomfilters.access=unrestricted}: a
 * write can weaken the guard, load the database, or tell a caller which keys exist.
 *
 * <p>Usage: {@code GET /actuator/bloomfilters/users}; {@code POST /actuator/bloomfilters/users} with
 * {@code {"action":"rebuild"}}, then {@code GET /actuator/bloomfilters/users/rebuilds/1}.
 *
 * <p>Its bodies are the descriptor records below; {@link FilterDescription} reads a filter into them.
 *
 * @since 0.1.0
 */
@Endpoint(id = "bloomfilters", defaultAccess = Access.READ_ONLY)
public class BloomFiltersEndpoint {

    /** The property that opens the write operations, for the startup log and messages. */
    public static final String WRITES_PROPERTY = "management.endpoint.bloomfilters.access";

    /** The path segment before a rebuild's id: {@code /actuator/bloomfilters/users/rebuilds/1}. */
    static final String REBUILDS = "rebuilds";

    private final BloomFilterRegistry registry;
    private final EndpointRebuilds rebuilds = new EndpointRebuilds();

    public BloomFiltersEndpoint(BloomFilterRegistry registry) {
        this.registry = registry;
    }

    /** Every filter's headline, by name, in configuration order. */
    @ReadOperation
    public FiltersDescriptor filters() {
        Map<String, FilterHeadline> filters = new LinkedHashMap<>();
        for (NamedBloomFilter filter : registry.all()) {
            filters.put(filter.name(), new FilterDescription(filter).headline());
        }
        return new FiltersDescriptor(filters);
    }

    /** One filter in detail, or {@code null} (a 404) when no filter has this name. */
    @ReadOperation
    public @Nullable FilterDescriptor filter(@Selector String name) {
        return registry.find(name).map(filter -> new FilterDescription(filter).detail()).orElse(null);
    }

    /**
     * A rebuild the endpoint started ({@code GET /actuator/bloomfilters/users/rebuilds/1}), or {@code null} (a 404)
     * when there is none of that filter with that id (the oldest finished ones are forgotten).
     */
    @ReadOperation
    public @Nullable RebuildDescriptor rebuild(@Selector String name, @Selector String rebuilds, @Selector String id) {
        return REBUILDS.equals(rebuilds) ? this.rebuilds.find(name, id) : null;
    }

    /**
     * Runs {@code action} on a filter: {@code rebuild} (from its key source, beside the live copy, in the background:
     * it answers at once with the rebuild to poll, or the one already running), {@code confirm-rebuild} (the same,
     * swapped in however few keys it reads: see {@link NamedBloomFilter#heldRebuild()}), {@code test} (whether
     * {@code key} might be in its bits: it reveals membership, hence a write operation) or {@code mode} (switch the
     * guard to {@code mode} until restart, logged as a warning with the caller).
     *
     * @throws io.bloomguard.registry.UnknownFilterException naming the configured filters
     * @throws IllegalArgumentException                      for an unknown action, {@code test} without a key or
     *                                                       with a key no filter can hold, {@code mode} without a
     *                                                       known mode
     * @throws UnsupportedOperationException                 for a filter that cannot rebuild
     * @throws IllegalStateException                         for a filter that cannot rebuild now (disabled, no key
     *                                                       source here)
     */
    @WriteOperation
    public ActionDescriptor act(@Selector String name, String action, @Nullable String key, @Nullable String mode,
            SecurityContext caller) {
        NamedBloomFilter filter = registry.get(name);
        return switch (FilterAction.parse(action)) {
            case REBUILD -> rebuilds.start(filter, false, who(caller));
            case CONFIRM_REBUILD -> rebuilds.start(filter, true, who(caller));
            case TEST -> {
                if (key == null) {
                    throw new IllegalArgumentException("Action 'test' needs a key: {\"action\":\"test\",\"key\":\"42\"}");
                }
                yield new MembershipDescriptor(filter.backendMightContain(key));
            }
            case MODE -> {
                GuardMode next = parseMode(mode);
                GuardMode previous = filter.switchMode(next, who(caller));
                yield new ModeDescriptor(lower(next), lower(previous), lower(filter.spec().guard().mode()));
            }
        };
    }

    private static GuardMode parseMode(@Nullable String mode) {
        for (GuardMode known : GuardMode.values()) {
            if (lower(known).equalsIgnoreCase(mode)) {
                return known;
            }
        }
        throw new IllegalArgumentException("Action 'mode' needs a mode: enforce, shadow or off, as in"
                + " {\"action\":\"mode\",\"mode\":\"shadow\"}" + ((mode != null) ? "; not '" + mode + "'" : ""));
    }

    /** Who called, for the audit log: the principal Spring Security (or JMX) gives, if any. */
    private static String who(SecurityContext caller) {
        Principal principal = caller.getPrincipal();
        return "the bloomfilters endpoint (" + ((principal != null) ? "principal '" + principal.getName() + "'"
                : "no authenticated principal") + ")";
    }

    /** The configured filters' names, for a 404's body. */
    List<String> names() {
        return registry.all().stream().map(NamedBloomFilter::name).toList();
    }

    /** An enum value as its property is spelled: {@code CONFIRM_REBUILD} is {@code confirm-rebuild}. */
    static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** What the write operation can do; the body's {@code action}. */
    enum FilterAction {
        REBUILD, CONFIRM_REBUILD, TEST, MODE;

        static FilterAction parse(@Nullable String action) {
            for (FilterAction known : values()) {
                if (lower(known).equalsIgnoreCase(action)) {
                    return known;
                }
            }
            throw new IllegalArgumentException("Unknown action '" + action + "'; actions: "
                    + Arrays.stream(values()).map(BloomFiltersEndpoint::lower).collect(Collectors.joining(", ")));
        }
    }

    /** Every filter's headline, by name. */
    public record FiltersDescriptor(Map<String, FilterHeadline> filters) {
    }

    /**
     * What a dashboard shows of one filter.
     *
     * @param backend                   {@code local} or {@code redis}
     * @param mode                      {@code enforce}, {@code shadow} or {@code off}: the one the guard uses now,
     *                                  which an operator may have switched ({@code spec.mode} is the configured one)
     * @param state                     its {@link io.bloomguard.registry.FilterState}
     * @param stateReason               why, for a state to act on ({@code ACCESS_DENIED}, {@code UNREACHABLE})
     * @param stateSince                when this instance saw it enter the state, ISO-8601
     * @param expectedSize              keys it is sized for
     * @param approximateElements       keys estimated from its bits (as last read, for Redis)
     * @param capacityRatio             {@code approximateElements / capacity}: above 1 it is over capacity
     * @param capacity                  keys it holds at its error rate: {@code expectedSize}, more once it has grown
     * @param overCapacity              whether it holds more keys than its capacity, so lets more absent keys
     *                                  through than its error rate
     * @param configuredErrorRate       the {@code error-rate} it is sized for
     * @param expectedFalsePositiveRate false-positive probability at its current fill
     * @param measuredFalsePositiveRate of the checked keys found absent, the share it let through
     * @param rejected                  calls it rejected
     * @param passed                    calls it let through
     * @param skipped                   calls it did not decide (any reason)
     * @param falsePositives            calls let through whose method found nothing
     * @param estimatesStale            whether the store could not be read since the estimates were (Redis)
     */
    public record FilterHeadline(String backend, String mode, String state, @Nullable String stateReason,
            String stateSince, long expectedSize, long approximateElements, double capacityRatio, long capacity,
            boolean overCapacity, double configuredErrorRate, double expectedFalsePositiveRate, double measuredFalsePositiveRate,
            long rejected, long passed, long skipped, long falsePositives, boolean estimatesStale) {
    }

    /**
     * One filter in detail: the {@link FilterHeadline} fields, then its spec, layout, counters, last preload and
     * rebuild, and for a Redis filter its live generation and breakers.
     */
    public record FilterDescriptor(String backend, String mode, String state, @Nullable String stateReason,
            String stateSince, long expectedSize, long approximateElements, double capacityRatio, long capacity,
            boolean overCapacity, double configuredErrorRate, double expectedFalsePositiveRate, double measuredFalsePositiveRate,
            long rejected, long passed, long skipped, long falsePositives, boolean estimatesStale, SpecDescriptor spec,
            LayoutDescriptor layout, CountersDescriptor counters, @Nullable LoadDescriptor lastPreload,
            @Nullable LoadDescriptor lastRebuild, @Nullable HeldRebuildDescriptor heldRebuild,
            @Nullable RedisDescriptor redis, @Nullable FeedDescriptor feed) {
    }

    /**
     * The filter's change feed: what it reads, its {@code state} here ({@code STARTING}, {@code RUNNING},
     * {@code FOLLOWING} another instance's, {@code FAILING}, {@code STOPPED}), {@code lagMillis} (null until it first
     * caught up) against {@code maxLagMillis}, whether it is {@code behind} and what the filter does then
     * ({@code whenBehind}), where it resumes, its last failure and change (ISO-8601), and what it applied.
     */
    public record FeedDescriptor(String description, String state, @Nullable Long lagMillis, long maxLagMillis,
            boolean behind, String whenBehind, @Nullable String position, @Nullable String failure,
            @Nullable String lastChange, long added, long removed, long deletesKept, long lost) {
    }

    /** The filter's resolved configuration, spelled as its properties are. */
    public record SpecDescriptor(long expectedSize, double errorRate, String backend, String mode,
            String onBackendFailure, String onAddFailure, @Nullable String preloadSql, String type, String growth,
            boolean putsOnly, double rebuildHoldBelow) {
    }

    /**
     * A rebuild held back for reading far fewer keys than the live filter holds: keys read, keys the live filter
     * held, when (ISO-8601), and what to do ({@code confirm-rebuild} once the key source is known to be right).
     */
    public record HeldRebuildDescriptor(long keysRead, long liveKeys, String at, String message) {
    }

    /**
     * How the bits are laid out: {@code bits} in all (positions: a counting filter has a 4-bit counter at each, a
     * scalable one counts every layer's, a cuckoo filter's are its fingerprint table's), {@code bytes} of memory or
     * Redis strings, {@code hashes} bits set per key (for a cuckoo filter, the 2 buckets a check reads),
     * {@code blocks} of 512 positions, over {@code shards} Redis strings (1 for a local filter), in {@code layers}
     * (1 unless it grows by layers).
     */
    public record LayoutDescriptor(long bits, long bytes, int hashes, long blocks, int shards, int layers) {
    }

    /** Every counter, skipped calls also by reason ({@code not_ready}, {@code mode_off}, ...). */
    public record CountersDescriptor(long rejected, long passed, long skipped, Map<String, Long> skippedByReason,
            long falsePositives, long shadowRejections, long shadowFalseNegatives, long backendErrors, long puts) {
    }

    /** One load from the key source: when it began (ISO-8601), keys read, how long, from what, why it failed. */
    public record LoadDescriptor(String started, long keys, long durationMillis, String source,
            @Nullable String failure) {
    }

    /**
     * A Redis filter's live generation ({@code null} while none is complete) and its bitmap keys, both with {@code *}
     * for the seed, whether a circuit breaker (checks, or adds and other commands) is open, this instance's near
     * copy ({@code null} when the filter keeps none), and the adds Redis acknowledged and lost that it found.
     */
    public record RedisDescriptor(@Nullable String generation, List<String> keys, boolean breakerOpen,
            @Nullable NearCopyDescriptor nearCopy, LossesDescriptor losses) {
    }

    /**
     * Adds Redis acknowledged and then lost (a failover to a replica that had not received them, a restart from an
     * older file), as this instance found them: losses found, keys it wrote again from its replay log, repairs
     * completed and their time in milliseconds, keys its replay log holds, when the last loss was found and since when
     * a repair runs (ISO-8601, {@code null} when none), and, for a filter filled by puts alone that lost adds, which
     * keys may be missing and what to do.
     */
    public record LossesDescriptor(long detected, long replayedKeys, long repairs, long repairMillis,
            long loggedKeys, @Nullable String lastDetected, @Nullable String repairingSince,
            @Nullable String warning) {
    }

    /**
     * This instance's copy of a Redis filter's bits: the generation it holds ({@code #} and the number of its build;
     * {@code null} while it holds none), whether it answers checks (it was read whole since that build went live),
     * when it was last read whole (ISO-8601, {@code null} before the first time), the checks it answered here
     * ("might contain") against those sent to Redis, who answers keys it lacks ({@code lease}, {@code barrier} or {@code redis}),
     * since when and why they go to Redis when it reads in order, the checks it answered "absent" after a barrier,
     * and the heap it takes.
     */
    public record NearCopyDescriptor(@Nullable String generation, boolean answering, @Nullable String lastRead,
            long answeredHere, long sentToRedis, String absentKeys, @Nullable String absentKeysToRedisSince,
            @Nullable String absentKeysReason, long rejectedHere, long bytes) {
    }

    /** What a write operation answers. */
    public sealed interface ActionDescriptor permits RebuildDescriptor, MembershipDescriptor, ModeDescriptor {
    }

    /**
     * A rebuild the endpoint started, to poll at {@code /actuator/bloomfilters/{filter}/rebuilds/{id}}.
     *
     * @param id             its handle
     * @param filter         the filter it rebuilds
     * @param action         {@code rebuild} or {@code confirm-rebuild}
     * @param state          {@code running} (it may wait for another background rebuild first: they run one at a
     *                       time), {@code succeeded} or {@code failed}
     * @param started        when it was asked for, ISO-8601
     * @param finished       when it ended, ISO-8601; {@code null} while running
     * @param keys           keys read from the key source, once it succeeded
     * @param durationMillis how long it has run, or ran
     * @param error          why it failed (a rebuild held back for reading too few keys says what to do)
     * @param startedNow     whether this request started it: {@code false} when it was running already
     */
    public record RebuildDescriptor(String id, String filter, String action, String state, String started,
            @Nullable String finished, @Nullable Long keys, long durationMillis, @Nullable String error,
            boolean startedNow) implements ActionDescriptor {
    }

    /** A test: whether the key might be in the filter's bits (whatever its state). */
    public record MembershipDescriptor(boolean mightContain) implements ActionDescriptor {
    }

    /**
     * A mode switch: the mode now, the one before, and the configured one it returns to on restart (unless
     * {@code bloom-guard.filters.<name>.mode} is set to keep it).
     */
    public record ModeDescriptor(String mode, String previous, String configured) implements ActionDescriptor {
    }
}
