package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedFeedState;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.engine.FilterEngine;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A Bloom filter stored in Redis and shared by every instance: the same bits as {@link LocalBloomFilter} (so
 * filters move between the two), one {@code GETRANGE} of the key's 64-byte block per check, one script per
 * shard for an add or a batch. A counting filter ({@link RedisFilterBackend#createCounting}) keeps the counters of
 * {@link io.bloomguard.local.LocalCountingFilter} instead, 256 bytes a block, and can {@link #remove} keys. One that
 * grows by layers ({@link RedisFilterBackend#createScalable}, a filter of the layered kind) adds a larger layer when its
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
 * <p>What keeps it from ever answering "absent" for a key that was added:
 * <ul>
 * <li>the bitmap's key name carries the {@link io.bloomguard.redis.kind.RedisFilterIdentity} its bits were written
 * with, so an instance that would compute other positions reads a missing key ("not ready") instead;</li>
 * <li>a missing bitmap, a filter still loading, a stored filter of another size, or adds that could not be
 * written make the filter not {@linkplain #trustedToReject() trusted}, and calls pass through;</li>
 * <li>a rebuild creates the next generation first and every add from then on reaches both, so the swap loses
 * nothing;</li>
 * <li>adds that fail are buffered and replayed; past the buffer's bound the filter is marked stale in Redis
 * for every instance and rebuilt.</li>
 * </ul>
 *
 * <p>It answers for the filter, each method with its contract; none of the work is done here: it all goes through
 * the filter's {@link FilterEngine}, and what it reports of its size was read by its maintenance: none of it waits on
 * Redis.
 *
 * @since 0.1.0
 */
public final class RedisBloomFilter implements SharedBloomFilter {

    private final String name;
    private final FilterEngine engine;

    RedisBloomFilter(String name, FilterEngine engine) {
        this.name = name;
        this.engine = engine;
    }

    public String name() {
        return name;
    }

    @Override
    public StartOutcome start(KeyFeed keys) {
        return engine.join(keys);
    }

    @Override
    public StartOutcome follow() {
        return engine.join(null);
    }

    /** Reads the stored state, replays buffered adds, and (re)builds the filter when it is gone or stale. */
    void maintain() {
        engine.maintain();
    }

    /** Reads the metadata of shard 0 and whether the live bitmaps exist; updates {@link #status()}. */
    void refresh() {
        engine.refresh();
    }

    /** The refusal this filter is under ({@code ACCESS_DENIED}), with what to change; {@code null} when none. */
    public @Nullable RedisAccessDeniedException accessDenied() {
        return engine.accessDenied();
    }

    @Override
    public @Nullable RuntimeException refusal() {
        return accessDenied();
    }

    @Override
    public @Nullable String statusReason() {
        return engine.statusReason();
    }

    @Override
    public SharedFilterStatus status() {
        return engine.status();
    }

    @Override
    public boolean storedBefore() {
        return engine.storedBefore();
    }

    @Override
    public boolean hasKeySource() {
        return engine.hasKeySource();
    }

    @Override
    public long rebuild() {
        return engine.rebuild();
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
        return engine.rebuild(expectedSize);
    }

    /** The epoch this instance last read from Redis; see {@link #rebuiltSince}. */
    @Override
    public long buildEpoch() {
        return engine.buildEpoch();
    }

    /**
     * Asks Redis (one round trip): a rebuild that another instance began is seen here only at the next refresh, too
     * late for a key put before it whose transaction commits now. A Redis that does not answer answers {@code true}:
     * the key is put again, and buffered as any put then is.
     */
    @Override
    public boolean rebuiltSince(long epoch) {
        try {
            return engine.storedEpoch() != epoch;
        }
        catch (RuntimeException ex) {
            return true;
        }
    }

    @Override
    public void onBuilt(BuildListener listener) {
        engine.onBuilt(listener);
    }

    /** Told after each read of the fill by the maintenance, every ten {@code refresh-interval}s. */
    @Override
    public void onFillRead(Runnable listener) {
        engine.onFillRead(listener);
    }

    /**
     * Replaces the stored filter with the given bits (from {@link LocalBloomFilter#exportSnapshot()} or another
     * filter's {@link #exportSnapshot()}), as a rebuild does: adds made meanwhile are kept.
     *
     * @throws IllegalStateException when another instance holds the load lock
     */
    public void importSnapshot(FilterSnapshot snapshot) {
        engine.importSnapshot(snapshot);
    }

    /** The stored bits with their size and seed, for a local filter or another store. */
    public FilterSnapshot exportSnapshot() {
        return engine.exportSnapshot(this::status);
    }

    @Override
    public void markIncomplete(String reason) {
        engine.markIncomplete(reason);
    }

    /**
     * Stops background work, then makes one last attempt (past the circuit breaker, within
     * {@link RedisBackendSettings#lastAttemptTimeout()}) to write the adds this instance still owes Redis, which
     * nothing would replay later; what cannot be written is covered by marking the filter stale in Redis (no instance
     * rejects with it until it is rebuilt), and what reaches Redis neither way is logged as an error with the count.
     * Closing again does nothing; for adds after close see {@link #putAll}.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public boolean mightContain(Object key) {
        return engine.mightContain(key);
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return engine.mightContainAsync(key);
    }

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return engine.mightContainAll(keys);
    }

    @Override
    public void onCheckLatency(CheckLatencyListener listener) {
        engine.onCheckLatency(listener);
    }

    @Override
    public boolean put(Object key) {
        return putAll(List.of(key)) > 0;
    }

    /**
     * Adds keys with one script per shard. Keys that cannot be written now (Redis unreachable, no bitmap yet) are
     * buffered for replay and counted as new; under {@link AddFailurePolicy#FAIL}, keys Redis did not take (it does
     * not answer, its breaker is open, or the generations changed under every attempt) throw instead, so that the
     * write they belong to fails. After {@link #close()} nothing replays a buffer: keys are written at once as by
     * close, or covered by a stale mark.
     *
     * @throws RedisUnavailableException under {@code FAIL} as above; after close, when neither the keys nor a stale
     *                                   mark reached Redis (the caller's write can roll back, and the guard logs it)
     */
    @Override
    public long putAll(Iterable<?> added) {
        return engine.putAll(added);
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
        if (!engine.removes()) {
            return SharedBloomFilter.super.remove(key);
        }
        return engine.remove(key);
    }

    /** As {@link #remove}, atomically with a check of the shard's build epoch in Redis. */
    @Override
    public boolean removeAt(Object key, long epoch) {
        if (!engine.removes()) {
            return SharedBloomFilter.super.remove(key);
        }
        return engine.removeAt(key, epoch);
    }

    /** Adds waiting for replay. */
    @Override
    public int pendingAdds() {
        return engine.pendingAdds();
    }

    @Override
    public long unconfirmedReplicaBatches() {
        return engine.unconfirmedReplicaBatches();
    }

    @Override
    public SharedFeedState feedState() {
        return engine.feedState();
    }

    @Override
    public SharedFilterDetails details() {
        return engine.details();
    }

    /** Whether each position is a 4-bit counter ({@code type: counting}), so that keys can be removed. */
    public boolean counting() {
        return engine.counting();
    }

    @Override
    public long approximateElementCount() {
        return engine.readFill().approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return engine.readFill().expectedFpp();
    }

    @Override
    public FillEstimate lastEstimate() {
        return engine.lastFill();
    }

    /** Bits of the live generation, of all its layers when it grows by layers. */
    @Override
    public long bitSize() {
        return engine.bitSize();
    }

    @Override
    public long byteSize() {
        return engine.byteSize();
    }

    /** Bits a put sets: in the newest layer when it grows by layers. */
    @Override
    public int hashCount() {
        return engine.hashCount();
    }

    /** Keys it holds at its error rate: of all its layers together when it grows by layers. */
    @Override
    public long capacity() {
        return engine.capacity();
    }

    /** Bits set as last read when it grows by layers (the newest layer's count is kept beside it); empty otherwise. */
    @Override
    public OptionalLong countedSetBits() {
        return engine.countedSetBits();
    }

    /** Whether it grows by layers ({@code growth: scale}); each layer a bitmap of its own beside the first. */
    public boolean layered() {
        return engine.layered();
    }

    /** Layers of the live generation as last read: 1 unless it grows by layers, 0 before it has one. */
    @Override
    public int layerCount() {
        return engine.layerCount();
    }

    /** The live generation's size (the configured one, or the one it grew to) once known; until then the configured. */
    @Override
    public FilterSizing sizing() {
        return engine.sizing();
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    @Override
    public int seed() {
        return engine.seed();
    }

    /** Shards the configured filter is split over. */
    public int shards() {
        return engine.shards();
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + status() + ", " + engine.fingerprintWithoutSeed() + "]";
    }
}
