package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import org.jspecify.annotations.Nullable;

/**
 * What an instance last read of a stored filter: its status, the live generation (set only when every shard's
 * bitmap existed) and which build of it is live, the size it holds keys at when this instance can use it, the
 * generation being built, and why the store is marked stale.
 * Immutable: a check reads one view throughout, however the filter changes meanwhile.
 */
final class RedisFilterView {

    public static final RedisFilterView NOT_STARTED = new RedisFilterView(SharedFilterStatus.NOT_STARTED, null, null,
            null, 1, null, null, null, null, 0L, false);

    public final SharedFilterStatus status;
    public final @Nullable RedisFilterIdentity live;
    /**
     * The live generation adds go to: {@link #live}, or, when a bitmap of it is missing, the one shard 0's metadata
     * names. While a filter of several shards is swapped, the shards swapped ahead of shard 0 no longer hold that one,
     * so it is not {@link #live} (checks pass), but the shards not swapped yet are where the other instances read an
     * add: it must still reach them. {@code null} for a filter that grows by layers (one shard, swapped at once).
     */
    public final @Nullable RedisFilterIdentity liveForAdds;
    /**
     * The live generation's size, with the keys it holds at the error rate: the configured size, or the larger one it
     * grew to ({@code growth: rebuild}). {@code null} when there is no live generation, or one of another shape
     * ({@code MISMATCHED}).
     */
    public final @Nullable FilterSizing liveSizing;
    public final @Nullable RedisFilterIdentity next;
    public final @Nullable String storeStale;
    /**
     * Which build of the live generation is live: its number and when it was swapped in. A rebuild of the same shape
     * keeps the bitmap's name (and seed), so the name alone does not tell one build's bits from the next one's.
     */
    public final @Nullable String liveBuild;
    /**
     * The build epoch shard 0's metadata held (0 when it held none): a build sets a new one as it begins and as it
     * swaps in. See {@link io.bloomguard.core.RebuildableBloomFilter#buildEpoch()}.
     */
    public final long epoch;
    /** The live generation opened by its kind, when there is one ({@link #live}): what checks read. */
    public final @Nullable Generation generation;
    /** The metadata's count of layers (1 unless the filter grows by layers): what {@link #generation} was opened with. */
    public final int layerCount;
    /**
     * Whether the metadata shows the filter was stored once: it names a live generation (whose bitmaps may be gone),
     * counts a swap, or records that an instance found it lost ({@code lost-at}).
     */
    public final boolean stored;

    /** @param liveNamed the live generation shard 0's metadata names, whether or not its bitmaps all exist */
    RedisFilterView(SharedFilterStatus status, @Nullable RedisFilterIdentity live,
            @Nullable RedisFilterIdentity liveNamed, @Nullable FilterSizing liveSizing, int layerCount,
            @Nullable Generation generation, @Nullable RedisFilterIdentity next, @Nullable String storeStale,
            @Nullable String liveBuild, long epoch, boolean stored) {
        this.status = status;
        this.epoch = epoch;
        this.stored = stored;
        this.live = live;
        this.liveForAdds = (live != null) ? live : (liveNamed != null && !liveNamed.layered()) ? liveNamed : null;
        this.liveSizing = (live != null) ? liveSizing : null;
        this.layerCount = layerCount;
        this.generation = (live != null) ? generation : null;
        this.next = next;
        this.storeStale = storeStale;
        this.liveBuild = (live != null) ? liveBuild : null;
    }

    /** The same view with another status. */
    RedisFilterView withStatus(SharedFilterStatus changed) {
        return new RedisFilterView(changed, live, liveForAdds, liveSizing, layerCount, generation, next,
                storeStale, liveBuild, epoch, stored);
    }
}
