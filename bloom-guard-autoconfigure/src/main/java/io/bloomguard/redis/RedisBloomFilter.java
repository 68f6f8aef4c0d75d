package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.client.RedisCommands;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.state.RedisFillEstimate;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A Bloom filter stored in Redis and shared by every instance: the same bits as {@link LocalBloomFilter} (so
 * filters move between the two), one {@code GETRANGE} of the key's 64-byte block per check, one script per
 * shard for an add or a batch. A counting filter ({@link RedisFilterBackend#createCounting}) keeps the counters of
 * {@link io.bloomguard.local.LocalCountingFilter} instead, 256 bytes a block, and can {@link #remove} keys. One that
 * grows by layers ({@link RedisFilterBackend#createScalable}, see {@link RedisLayers}) adds a larger layer when its
 * newest is full, and is checked with one script that reads every layer.
 *
 * <p>Usage (the auto-configuration does this for {@code backend: redis}):
 * <pre>{@code
 * RedisBloomFilter users = backend.create("users", FilterSizing.of(10_000_000, 0.001), 1);
 * users.start(feed);                 // loads it once for all instances, or follows the loader
 * users.put(42L);
 * if (users.trustedToReject() && !users.mightContain(7L)) ...
 * }</pre>
 *
 * <p>What keeps it from ever answering "absent" for a key that was added is listed in {@link io.bloomguard.redis the
 * package}.
 *
 * <p>It answers for the filter, each method with its contract; none of the work is done here: each job has its
 * class, wired together by {@link RedisFilterParts}.
 */
public final class RedisBloomFilter implements SharedBloomFilter {

    private final String name;
    private final RedisFilterParts parts;

    RedisBloomFilter(String name, FilterSizing sizing, RedisFilterOptions options, RedisBackendSettings settings,
            RedisFilterParts.Shared backend) {
        this.name = name;
        this.parts = new RedisFilterParts(this, name, sizing, options, settings, backend);
    }

    public String name() {
        return name;
    }

    /** The key of the filter's metadata, which a {@link RecoveryProbe} asks about. */
    String metaKey() {
        return parts.keys.meta(0);
    }

    @Override
    public StartOutcome start(KeyFeed keys) {
        return parts.lifecycle.join(keys);
    }

    @Override
    public StartOutcome follow() {
        return parts.lifecycle.join(null);
    }

    /** Reads the stored state, replays buffered adds, and (re)builds the filter when it is gone or stale. */
    void maintain() {
        parts.lifecycle.maintain();
    }

    /** Reads the metadata of shard 0 and whether the live bitmaps exist; updates {@link #status()}. */
    void refresh() {
        parts.state.refresh();
    }

    /** The refusal this filter is under ({@code ACCESS_DENIED}), with what to change; {@code null} when none. */
    public @Nullable RedisAccessDeniedException accessDenied() {
        return parts.access.denied();
    }

    @Override
    public @Nullable String statusReason() {
        return parts.access.reason();
    }

    @Override
    public SharedFilterStatus status() {
        return parts.lifecycle.status();
    }

    @Override
    public boolean hasKeySource() {
        return parts.loader.hasKeySource();
    }

    @Override
    public long rebuild() {
        return parts.loader.rebuild();
    }

    /**
     * Rebuilds it from the key source sized for {@code expectedSize} keys at the same error rate, as
     * {@code growth: rebuild} does once it is nearly full. Every instance configured for this filter recognises the
     * larger generation by its metadata and uses it; later rebuilds keep that size.
     *
     * @throws IllegalArgumentException    when a filter of that size cannot be built
     * @throws RebuildInProgressException as {@link #rebuild()}
     */
    @Override
    public long rebuild(long expectedSize) {
        return parts.loader.rebuild(expectedSize);
    }

    @Override
    public void onBuilt(BuildListener listener) {
        parts.loader.onBuilt(listener);
    }

    /** Told after each read of the fill by the maintenance, every ten {@code refresh-interval}s. */
    @Override
    public void onFillRead(Runnable listener) {
        parts.fill.onRead(listener);
    }

    /**
     * Replaces the stored filter with the given bits (from {@link LocalBloomFilter#exportSnapshot()} or another
     * filter's {@link #exportSnapshot()}), as a rebuild does: adds made meanwhile are kept.
     *
     * @throws IllegalStateException when another instance holds the load lock
     */
    public void importSnapshot(FilterSnapshot snapshot) {
        parts.loader.importSnapshot(snapshot);
    }

    /** The stored bits with their size and seed, for a local filter or another store. */
    public FilterSnapshot exportSnapshot() {
        return parts.size.export(name, this::status, parts.loader::export);
    }

    @Override
    public void markIncomplete(String reason) {
        parts.outage.markIncomplete(reason);
    }

    /**
     * Stops background work, then makes one last attempt to hand Redis what this instance still owes it, since
     * nothing will replay it later and the other instances would reject the records it belongs to: the buffered
     * adds are written, and whatever cannot be written is covered by marking the filter stale in Redis, so that no
     * instance rejects with it until it has been rebuilt from its key source. What reaches Redis neither way is
     * logged as an error, with the filter's name and how many adds were lost. The attempt goes past the circuit
     * breaker (open, perhaps, for a failure that is over) and takes at most
     * {@link RedisBackendSettings#lastAttemptTimeout()}. Closing again does nothing.
     *
     * <p>Adds after close are not buffered: see {@link #putAll}.
     */
    @Override
    public void close() {
        close(parts.commands.newLastAttempt());
    }

    /** {@link #close()} within a last attempt shared by every filter of the backend. */
    void close(RedisCommands lastAttempt) {
        parts.lifecycle.close(lastAttempt);
    }

    @Override
    public boolean mightContain(Object key) {
        return parts.reader.mightContain(key);
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return parts.reader.mightContainAsync(key);
    }

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return parts.reader.mightContainAll(keys);
    }

    @Override
    public void onCheckLatency(CheckLatencyListener listener) {
        parts.reader.onCheckLatency(listener);
    }

    @Override
    public boolean put(Object key) {
        return putAll(List.of(key)) > 0;
    }

    /**
     * Adds keys with one script per shard. Keys that cannot be written now (Redis unreachable, no bitmap yet)
     * are buffered for replay and counted as new, since they may be. Under {@link AddFailurePolicy#FAIL} keys that
     * cannot be written because Redis does not answer (or its circuit breaker is open), or because the generations
     * changed under every attempt, are not buffered: this throws, so that the write they belong to fails.
     *
     * <p>After {@link #close()} nothing replays a buffer, so keys are not buffered: they are written at once, past
     * the circuit breaker, within {@link RedisBackendSettings#lastAttemptTimeout()}; if they cannot be, the filter
     * is marked stale in Redis instead (no instance rejects with it until it has been rebuilt from its key source);
     * if neither reaches Redis (it is down, or the backend has released its connection), this throws, so that the
     * loss is not silent: the caller's write can roll back, and the guard logs it.
     *
     * @throws RedisUnavailableException after close, when neither the keys nor a stale mark reached Redis; under
     *                                   {@link AddFailurePolicy#FAIL}, when Redis did not take the keys or they could
     *                                   not be placed
     */
    @Override
    public long putAll(Iterable<?> added) {
        return parts.outage.putAll(added);
    }

    /**
     * Takes one put of a key back from a counting filter: atomically, if none of its counters in the live generation
     * is zero, each one below 15 is decremented. Removes reach neither a generation being built nor, while Redis does
     * not answer, any buffer: either way the key stays in as a false positive until the next rebuild.
     *
     * @return {@code false} when the filter certainly does not hold the key, or has no live generation to take it
     * from (it changed nothing)
     * @throws UnsupportedOperationException for a plain filter
     * @throws RedisUnavailableException     when Redis does not answer
     */
    @Override
    public boolean remove(Object key) {
        if (!parts.configured.counting()) {
            return SharedBloomFilter.super.remove(key);
        }
        return parts.removal.remove(key);
    }

    /** Whether each position is a 4-bit counter ({@code type: counting}), so that keys can be removed. */
    public boolean counting() {
        return parts.configured.counting();
    }

    /** Adds waiting for replay. */
    public int pendingAdds() {
        return parts.outage.pendingAdds();
    }

    @Override
    public long approximateElementCount() {
        return parts.fill.read().approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return parts.fill.read().expectedFpp();
    }

    @Override
    public FillEstimate lastEstimate() {
        return parts.fill.current(parts.access.answering());
    }

    /** Bits of the live generation, of all its layers when it grows by layers. */
    @Override
    public long bitSize() {
        return parts.size.bitSize();
    }

    @Override
    public long byteSize() {
        return parts.size.byteSize();
    }

    /** Bits a put sets: in the newest layer when it grows by layers. */
    @Override
    public int hashCount() {
        return parts.size.hashCount();
    }

    /** Keys it holds at its error rate: of all its layers together when it grows by layers. */
    @Override
    public long capacity() {
        return parts.size.capacity();
    }

    /** See {@link RedisFillEstimate#layerSetBits()}. */
    @Override
    public OptionalLong countedSetBits() {
        return parts.fill.layerSetBits();
    }

    /** Whether it grows by layers ({@code growth: scale}); see {@link RedisLayers}. */
    public boolean layered() {
        return parts.configured.layered();
    }

    /** Layers of the live generation as last read: 1 unless it grows by layers, 0 before it has one. */
    @Override
    public int layerCount() {
        return parts.size.layerCount();
    }

    /** The live generation's size (the configured one, or the one it grew to) once known; until then the configured. */
    @Override
    public FilterSizing sizing() {
        return parts.size.sizing();
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    @Override
    public int seed() {
        return parts.size.seed();
    }

    /** Shards the configured filter is split over. */
    public int shards() {
        return parts.configured.shards();
    }

    @Override
    public SharedFilterDetails details() {
        return parts.state.details(parts.commands.checksBreakerOpen(), parts.commands.commandsBreakerOpen(),
                parts.nearCopy.details());
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + status() + ", " + parts.configured.fingerprintWithoutSeed() + "]";
    }
}
