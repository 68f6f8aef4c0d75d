package io.bloomguard.redis.engine;

import io.bloomguard.core.FillEstimate;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.BuildListener;
import io.bloomguard.core.SharedBloomFilter.CheckLatencyListener;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFeedState;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisAcl;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * The engine of one {@link io.bloomguard.redis.RedisBloomFilter}: the one door through which the filter reaches its
 * parts, each with its job, wired together here: {@link RedisFilterLifecycle} (join,
 * maintenance, close), {@link RedisStoredState} (what Redis holds), {@link RedisBitReader} (checks),
 * {@link RedisNearCopy} (with {@code redis.near-copy}, this instance's copy of the bits, which answers the keys it
 * holds, and with {@code ordered}, kept in step by {@link RedisCopyInStep}, the keys it lacks too),
 * {@link RedisOutageBuffer} (adds, through {@link RedisBitWriter}, and what this instance owes Redis),
 * {@link RedisFilterLoader} (builds under the load lock), {@link RedisFillEstimate} (the fill),
 * {@link RedisFilterCommands} (timeouts, breakers, last attempts), {@link RedisCounterRemoval} (removes from a
 * counting filter), {@link RedisLiveSize} (the size it answers with), {@link RedisLostAdds} (adds Redis acknowledged and lost, found
 * by {@link RedisAcknowledgedAdds}, and their repair).
 *
 * <p>Usage: {@code FilterEngine users = redisEngine.filter("users", sizing, options); users.mightContain(42L);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class FilterEngine {

    private final String name;
    final RedisFilterIdentity configured;
    final RedisFilterKeys keys;
    final RedisAccessState access;
    final RedisFilterCommands commands;
    final RedisStoredState state;
    /** {@code null} unless the filter keeps a near copy ({@code redis.near-copy}): a copy switched off is none. */
    final @Nullable RedisNearCopy nearCopy;
    final RedisBitReader reader;
    final RedisOutageBuffer outage;
    final RedisFilterLoader loader;
    final RedisFillEstimate fill;
    final RedisFilterLifecycle lifecycle;
    final RedisCounterRemoval removal;
    final RedisLiveSize size;
    final RedisLostAdds lost;
    final RedisReplicaWait replicaWait;

    FilterEngine(String name, FilterSizing sizing, FilterOptions options,
            EngineSettings settings, Shared backend) {
        this.name = name;
        NearCopyMode nearCopy = options.nearCopy();
        this.configured = options.kind().identity(sizing, options.seed(), options.shards());
        this.keys = new RedisFilterKeys(settings.keyPrefix(), name);
        this.access = new RedisAccessState(name, new RedisAcl(settings.keyPrefix()));
        RedisCommands others = backend.commands().reportingTo(access);
        this.commands = new RedisFilterCommands(backend.checks().reportingTo(access), others, settings);
        PendingAdds pending = new PendingAdds(settings.pendingAddsLimit());
        RedisStaleMarks marks = new RedisStaleMarks(keys, commands, pending);
        this.state = new RedisStoredState(name, sizing, configured, backend.kinds(), keys, commands, marks);
        RedisCopyInStep inStep = (nearCopy == NearCopyMode.ORDERED || nearCopy == NearCopyMode.LEASED)
                ? new RedisCopyInStep(name, backend.adds(), keys, commands, settings.commandTimeout(),
                        settings.refreshInterval(), (nearCopy == NearCopyMode.LEASED) ? settings.nearCopyLease() : null)
                : null;
        this.nearCopy = nearCopy.keepsCopy() ? new RedisNearCopy(inStep, name, configured, commands,
                backend.builders(), settings.refreshInterval()) : null;
        this.reader = new RedisBitReader(state, commands, this.nearCopy, backend.scheduler());
        this.removal = new RedisCounterRemoval(state, commands);
        Runnable waitForRedis = () -> backend.recovery().waiting(this); // when it owes Redis adds or a mark
        RedisAcknowledgedAdds acks = new RedisAcknowledgedAdds(commands,
                new ReplayLog(settings.replayLogSize(), settings.replayLogAge(), System::nanoTime));
        this.replicaWait = new RedisReplicaWait(name, settings.waitForReplicas(), settings.waitTimeout(),
                options.onAddFailure(), commands);
        this.outage = new RedisOutageBuffer(name, options.onAddFailure(), pending, marks, state,
                new RedisBitWriter(keys, state, commands, this.nearCopy, acks, replicaWait,
                        (inStep != null) ? inStep.leases() : null), commands, access,
                waitForRedis);
        this.loader = new RedisFilterLoader(name, sizing, configured, keys, others, settings, state, pending, marks,
                new RedisBuildThreads(backend.builders(), backend.scheduler(), backend.startupBuilds()));
        this.lost = new RedisLostAdds(name, acks, pending, outage, loader::fillsByPutsAlone, this::shardMetadata);
        this.fill = new RedisFillEstimate(settings.refreshInterval(), sizing, state, commands);
        this.lifecycle = new RedisFilterLifecycle(name, settings.refreshInterval(), access,
                new RedisAccessCheck(keys, settings.commandTimeout(), access, configured.type(),
                        new RedisKeyTypes(keys, configured, settings.commandTimeout())), commands, state,
                this.nearCopy, outage, loader, fill, lost, backend.scheduler(), waitForRedis);
        this.size = new RedisLiveSize(sizing, configured, state);
    }

    /** The metadata of every shard of the configured, live and next generations: where this instance's adds went. */
    private List<String> shardMetadata() {
        RedisFilterView view = state.view();
        int shards = configured.shards();
        if (view.live != null) {
            shards = Math.max(shards, view.live.shards());
        }
        if (view.next != null) {
            shards = Math.max(shards, view.next.shards());
        }
        List<String> metas = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            metas.add(keys.meta(shard));
        }
        return metas;
    }

    /** Where the filter's change feed stands in Redis. */
    public SharedFeedState feedState() {
        return new RedisFeedState(keys, commands);
    }

    public StartOutcome join(@Nullable KeyFeed keys) {
        return lifecycle.join(keys);
    }

    public void maintain() {
        lifecycle.maintain();
    }

    public void refresh() {
        state.refresh();
    }

    public SharedFilterStatus status() {
        return lifecycle.status();
    }

    public @Nullable RedisAccessDeniedException accessDenied() {
        return access.denied();
    }

    public @Nullable String accessReason() {
        return access.reason();
    }

    /**
     * Why the filter is not trusted, or what an operator should know of it: a refusal first, then a loss this instance
     * found, then the reason of a stale mark another instance made.
     */
    public @Nullable String statusReason() {
        String refused = access.reason();
        if (refused != null) {
            return refused;
        }
        String loss = lost.reason();
        if (loss != null) {
            return loss;
        }
        String stale = state.view().storeStale;
        return (stale != null && status() == SharedFilterStatus.STALE) ? "marked stale in Redis: " + stale : null;
    }

    public boolean storedBefore() {
        return state.storedBefore();
    }

    public boolean hasKeySource() {
        return loader.hasKeySource();
    }

    public long rebuild() {
        return loader.rebuild();
    }

    public long rebuild(long expectedSize) {
        return loader.rebuild(expectedSize);
    }

    /** The build epoch of the view last read. */
    public long buildEpoch() {
        return state.view().epoch;
    }

    /** The build epoch Redis holds now: one command. */
    public long storedEpoch() {
        return state.storedEpoch();
    }

    public void onBuilt(BuildListener listener) {
        loader.onBuilt(listener);
    }

    public void onFillRead(Runnable listener) {
        fill.onRead(listener);
    }

    public void importSnapshot(FilterSnapshot snapshot) {
        loader.importSnapshot(snapshot);
    }

    public FilterSnapshot exportSnapshot(Supplier<SharedFilterStatus> status) {
        return size.export(name, status, loader::export);
    }

    public void markIncomplete(String reason) {
        outage.markIncomplete(reason);
    }

    /** Closes the filter alone, within a last attempt of its own. */
    public void close() {
        lifecycle.close(commands.newLastAttempt());
    }

    public boolean mightContain(Object key) {
        return reader.mightContain(key);
    }

    public CompletableFuture<Boolean> mightContainAsync(Object key) {
        return reader.mightContainAsync(key);
    }

    public boolean[] mightContainAll(List<?> keys) {
        return reader.mightContainAll(keys);
    }

    public void onCheckLatency(CheckLatencyListener listener) {
        reader.onCheckLatency(listener);
    }

    public long putAll(Iterable<?> added) {
        return outage.putAll(added);
    }

    /** Whether its kind keeps counts, so that keys can be removed. */
    public boolean removes() {
        return configured.counting();
    }

    public boolean remove(Object key) {
        return removal.remove(key);
    }

    public boolean removeAt(Object key, long epoch) {
        return removal.removeAt(key, epoch);
    }

    public int pendingAdds() {
        return outage.pendingAdds();
    }

    /** Batches of adds fewer replicas confirmed than {@code wait-for-replicas} asks. */
    public long unconfirmedReplicaBatches() {
        return replicaWait.unconfirmed();
    }

    public SharedFilterDetails details() {
        return state.details(commands.checksBreakerOpen(), commands.commandsBreakerOpen(),
                (nearCopy != null) ? nearCopy.details() : null, lost.details());
    }

    /** The configured identity's fingerprint, without its seed: safe to show. */
    public String fingerprintWithoutSeed() {
        return configured.fingerprintWithoutSeed();
    }

    public boolean counting() {
        return configured.counting();
    }

    public boolean layered() {
        return configured.layered();
    }

    public int shards() {
        return configured.shards();
    }

    /** Reads the fill now: see {@link RedisFillEstimate#read}. */
    public FillEstimate readFill() {
        return fill.read();
    }

    /** The fill last read, stale while Redis does not answer the filter. */
    public FillEstimate lastFill() {
        return fill.current(access.answering());
    }

    public OptionalLong countedSetBits() {
        return fill.layerSetBits();
    }

    public long bitSize() {
        return size.bitSize();
    }

    public long byteSize() {
        return size.byteSize();
    }

    public int hashCount() {
        return size.hashCount();
    }

    public long capacity() {
        return size.capacity();
    }

    public int layerCount() {
        return size.layerCount();
    }

    public FilterSizing sizing() {
        return size.sizing();
    }

    public int seed() {
        return size.seed();
    }

    /** What a filter shares with the other filters of its {@link io.bloomguard.redis.RedisFilterBackend}. */
    record Shared(RedisCommands checks, RedisCommands commands, ScheduledExecutorService scheduler,
            ExecutorService builders, RecoveryProbe recovery, Semaphore startupBuilds, RedisAddFeed adds,
            List<BlockKind> kinds) {
    }
}
