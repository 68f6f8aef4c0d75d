package io.bloomguard.redis;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.redis.access.RedisAccessCheck;
import io.bloomguard.redis.access.RedisAccessState;
import io.bloomguard.redis.access.RedisKeyTypes;
import io.bloomguard.redis.build.RedisBuildThreads;
import io.bloomguard.redis.build.RedisFilterLifecycle;
import io.bloomguard.redis.build.RedisFilterLoader;
import io.bloomguard.redis.client.RedisCommands;
import io.bloomguard.redis.client.RedisFilterCommands;
import io.bloomguard.redis.copy.RedisAddFeed;
import io.bloomguard.redis.copy.RedisCopyInStep;
import io.bloomguard.redis.copy.RedisNearCopy;
import io.bloomguard.redis.layout.RedisLayers;
import io.bloomguard.redis.read.RedisBitReader;
import io.bloomguard.redis.state.RedisFillEstimate;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStaleMarks;
import io.bloomguard.redis.state.RedisStoredState;
import io.bloomguard.redis.write.PendingAdds;
import io.bloomguard.redis.write.RedisBitWriter;
import io.bloomguard.redis.write.RedisCounterRemoval;
import io.bloomguard.redis.write.RedisOutageBuffer;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;

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
 * <p>What keeps it from ever answering "absent" for a key that was added:
 * <ul>
 * <li>the bitmap's key name carries the {@link RedisFilterIdentity} its bits were written with, so an instance
 * that would compute other positions reads a missing key ("not ready") instead;</li>
 * <li>a missing bitmap, a filter still loading, a stored filter of another size, or adds that could not be
 * written make the filter not {@linkplain #trustedToReject() trusted}, and calls pass through;</li>
 * <li>a rebuild creates the next generation first and every add from then on reaches both, so the swap loses
 * nothing;</li>
 * <li>adds that fail are buffered and replayed; past the buffer's bound the filter is marked stale in Redis
 * for every instance and rebuilt.</li>
 * </ul>
 *
 * <p>It answers for the filter; each job has its class: {@link RedisFilterLifecycle} (join, maintenance, close),
 * {@link RedisStoredState} (what Redis holds), {@link RedisBitReader} (checks), {@link RedisNearCopy} (with
 * {@code redis.near-copy}, this instance's copy of the bits, which answers the keys it holds, and with
 * {@code ordered}, kept in step by {@link RedisCopyInStep}, the keys it lacks too),
 * {@link RedisOutageBuffer} (adds, through {@link RedisBitWriter}, and what this instance owes Redis),
 * {@link RedisFilterLoader} (builds under the load lock), {@link RedisFillEstimate} (the fill),
 * {@link RedisFilterCommands} (timeouts, breakers, last attempts), {@link RedisCounterRemoval} (removes from a
 * counting filter). It is longer than most classes because it is the filter's whole public face, each method with
 * its contract; none of the work is done here.
 */
public final class RedisBloomFilter implements SharedBloomFilter {

    private final String name;
    private final FilterSizing sizing;
    private final RedisFilterIdentity configured;
    private final RedisFilterKeys keys;
    private final RedisAccessState access;
    private final RedisFilterCommands commands;
    private final RedisStoredState state;
    private final RedisNearCopy nearCopy;
    private final RedisBitReader reader;
    private final RedisOutageBuffer outage;
    private final RedisFilterLoader loader;
    private final RedisFillEstimate fill;
    private final RedisFilterLifecycle lifecycle;
    private final RedisCounterRemoval removal;

    RedisBloomFilter(String name, FilterSizing sizing, RedisFilterOptions options, RedisBackendSettings settings,
            Shared backend) {
        this.name = name;
        this.sizing = sizing;
        boolean counting = options.counting();
        NearCopyMode nearCopy = options.nearCopy();
        RedisFilterIdentity identity = RedisFilterIdentity.of(sizing, options.seed(), options.shards(), counting);
        this.configured = options.layered() ? identity.asLayered() : identity;
        this.keys = new RedisFilterKeys(settings.keyPrefix(), name);
        this.access = new RedisAccessState(name, new RedisAcl(settings.keyPrefix()));
        RedisCommands others = backend.commands().reportingTo(access);
        this.commands = new RedisFilterCommands(backend.checks().reportingTo(access), others, settings);
        PendingAdds pending = new PendingAdds(settings.pendingAddsLimit());
        RedisStaleMarks marks = new RedisStaleMarks(keys, commands, pending);
        this.state = new RedisStoredState(name, sizing, configured, keys, commands, marks);
        RedisCopyInStep inStep = (nearCopy == NearCopyMode.ORDERED) ? new RedisCopyInStep(name, backend.adds(), keys,
                commands, settings.commandTimeout(), settings.refreshInterval()) : null;
        this.nearCopy = new RedisNearCopy(nearCopy.keepsCopy(), inStep, name, configured, commands, backend.builders(),
                settings.refreshInterval());
        this.reader = new RedisBitReader(state, commands, this.nearCopy, backend.scheduler());
        this.removal = new RedisCounterRemoval(keys, state, commands);
        Runnable waitForRedis = () -> backend.recovery().waiting(this);
        this.outage = new RedisOutageBuffer(name, options.unwritableAdds(), pending, marks, state,
                new RedisBitWriter(keys, state, commands, this.nearCopy), commands, access, waitForRedis);
        this.loader = new RedisFilterLoader(name, sizing, configured, keys, others, settings, state, pending, marks,
                new RedisBuildThreads(backend.builders(), backend.scheduler(), backend.startupBuilds()));
        this.fill = new RedisFillEstimate(settings.refreshInterval(), sizing, state, commands);
        this.lifecycle = new RedisFilterLifecycle(name, settings.refreshInterval(), access,
                new RedisAccessCheck(keys, settings.commandTimeout(), access, counting,
                        new RedisKeyTypes(keys, configured, settings.commandTimeout())), commands, state,
                this.nearCopy, outage, loader, fill, backend.scheduler(), waitForRedis);
    }

    public String name() {
        return name;
    }

    /** The key of the filter's metadata, which a {@link RecoveryProbe} asks about. */
    String metaKey() {
        return keys.meta(0);
    }

    @Override
    public StartOutcome start(KeyFeed keys) {
        return lifecycle.join(keys);
    }

    @Override
    public StartOutcome follow() {
        return lifecycle.join(null);
    }

    /** Reads the stored state, replays buffered adds, and (re)builds the filter when it is gone or stale. */
    void maintain() {
        lifecycle.maintain();
    }

    /** Reads the metadata of shard 0 and whether the live bitmaps exist; updates {@link #status()}. */
    void refresh() {
        state.refresh();
    }

    /** The refusal this filter is under ({@code ACCESS_DENIED}), with what to change; {@code null} when none. */
    public @Nullable RedisAccessDeniedException accessDenied() {
        return access.denied();
    }

    @Override
    public @Nullable String statusReason() {
        return access.reason();
    }

    @Override
    public SharedFilterStatus status() {
        return lifecycle.status();
    }

    @Override
    public boolean hasKeySource() {
        return loader.hasKeySource();
    }

    @Override
    public long rebuild() {
        return loader.rebuild();
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
        return loader.rebuild(expectedSize);
    }

    @Override
    public void onBuilt(BuildListener listener) {
        loader.onBuilt(listener);
    }

    /** Told after each read of the fill by the maintenance, every ten {@code refresh-interval}s. */
    @Override
    public void onFillRead(Runnable listener) {
        fill.onRead(listener);
    }

    /**
     * Replaces the stored filter with the given bits (from {@link LocalBloomFilter#exportSnapshot()} or another
     * filter's {@link #exportSnapshot()}), as a rebuild does: adds made meanwhile are kept.
     *
     * @throws IllegalStateException when another instance holds the load lock
     */
    public void importSnapshot(FilterSnapshot snapshot) {
        loader.importSnapshot(snapshot);
    }

    /** The stored bits with their size and seed, for a local filter or another store. */
    public FilterSnapshot exportSnapshot() {
        RedisFilterView view = state.view();
        RedisFilterIdentity live = view.live;
        if (live == null) {
            throw new IllegalStateException("Filter '" + name + "' has no complete bitmap in Redis (" + status() + ")");
        }
        if (view.layers != null && view.layers.count() > 1) {
            throw new UnsupportedOperationException("Filter '" + name + "' has grown to " + view.layers.count()
                    + " layers, and a snapshot holds one; rebuild it (which makes its layers one) and export again");
        }
        return loader.export(live, (view.liveSizing != null) ? view.liveSizing : live.sizing(sizing));
    }

    @Override
    public void markIncomplete(String reason) {
        outage.markIncomplete(reason);
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
        close(commands.newLastAttempt());
    }

    /** {@link #close()} within a last attempt shared by every filter of the backend. */
    void close(RedisCommands lastAttempt) {
        lifecycle.close(lastAttempt);
    }

    @Override
    public boolean mightContain(Object key) {
        return reader.mightContain(key);
    }

    @Override
    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return reader.mightContainAsync(key);
    }

    /** One script per shard, all sent before any answer is awaited: one round trip for a batch on one shard. */
    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return reader.mightContainAll(keys);
    }

    @Override
    public void onCheckLatency(CheckLatencyListener listener) {
        reader.onCheckLatency(listener);
    }

    @Override
    public boolean put(Object key) {
        return putAll(List.of(key)) > 0;
    }

    /**
     * Adds keys with one script per shard. Keys that cannot be written now (Redis unreachable, no bitmap yet)
     * are buffered for replay and counted as new, since they may be. Under {@link UnwritableAdds#FAIL} keys that
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
     *                                   {@link UnwritableAdds#FAIL}, when Redis did not take the keys or they could
     *                                   not be placed
     */
    @Override
    public long putAll(Iterable<?> added) {
        return outage.putAll(added);
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
        if (!configured.counting()) {
            return SharedBloomFilter.super.remove(key);
        }
        return removal.remove(key);
    }

    /** Whether each position is a 4-bit counter ({@code type: counting}), so that keys can be removed. */
    public boolean counting() {
        return configured.counting();
    }

    /** Adds waiting for replay. */
    public int pendingAdds() {
        return outage.pendingAdds();
    }

    @Override
    public long approximateElementCount() {
        return fill.read().approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return fill.read().expectedFpp();
    }

    @Override
    public FillEstimate lastEstimate() {
        return fill.current(access.answering());
    }

    /** Bits of the live generation, of all its layers when it grows by layers. */
    @Override
    public long bitSize() {
        RedisLayers layers = state.view().layers;
        return (layers != null) ? layers.bitSize() : sizing().bitSize();
    }

    @Override
    public long byteSize() {
        return configured.layered() ? bitSize() / Byte.SIZE : sizing().blockCount() * configured.bytesPerBlock();
    }

    /** Bits a put sets: in the newest layer when it grows by layers. */
    @Override
    public int hashCount() {
        RedisLayers layers = state.view().layers;
        return (layers != null) ? layers.newestHashCount() : sizing().hashCount();
    }

    /** Keys it holds at its error rate: of all its layers together when it grows by layers. */
    @Override
    public long capacity() {
        RedisLayers layers = state.view().layers;
        return (layers != null) ? layers.capacity() : sizing().expectedSize();
    }

    /** See {@link RedisFillEstimate#layerSetBits()}. */
    @Override
    public OptionalLong countedSetBits() {
        return fill.layerSetBits();
    }

    /** Whether it grows by layers ({@code growth: scale}); see {@link RedisLayers}. */
    public boolean layered() {
        return configured.layered();
    }

    /** Layers of the live generation as last read: 1 unless it grows by layers, 0 before it has one. */
    @Override
    public int layerCount() {
        if (!configured.layered()) {
            return 1;
        }
        RedisFilterView view = state.view();
        return (view.layers != null) ? view.layers.count() : 0;
    }

    /** The live generation's size (the configured one, or the one it grew to) once known; until then the configured. */
    @Override
    public FilterSizing sizing() {
        FilterSizing live = state.view().liveSizing;
        return (live != null) ? live : sizing;
    }

    /** Seed of the stored filter once known; until then the seed this instance would create it with. */
    @Override
    public int seed() {
        RedisFilterIdentity live = state.view().live;
        return (live != null) ? live.seed() : configured.seed();
    }

    /** Shards the configured filter is split over. */
    public int shards() {
        return configured.shards();
    }

    @Override
    public SharedFilterDetails details() {
        return state.details(commands.checksBreakerOpen(), commands.commandsBreakerOpen(), nearCopy.details());
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + status() + ", " + configured.fingerprintWithoutSeed() + "]";
    }

    /** What a filter shares with the other filters of its {@link RedisFilterBackend}. */
    record Shared(RedisCommands checks, RedisCommands commands, ScheduledExecutorService scheduler,
            ExecutorService builders, RecoveryProbe recovery, Semaphore startupBuilds, RedisAddFeed adds) {
    }
}
