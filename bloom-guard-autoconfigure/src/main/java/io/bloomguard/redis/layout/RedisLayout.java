package io.bloomguard.redis.layout;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisFilterView;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * How one kind of filter keeps a key's positions in Redis (bits, 4-bit counters, or bits in layers), and all that
 * follows from it: the identity it is stored under, the codec between the JVM's words and Redis bytes, how a key is
 * checked, which script adds keys, what a build reads its key source into, and how the fill is counted. A filter's
 * is chosen once, when it is assembled; a stored generation's is its identity's {@code kind}.
 *
 * <p>Usage: {@code RedisLayout layout = view.live.kind(); byte[] bytes = layout.toRedisBytes(words, 0, count);}
 */
public interface RedisLayout {

    /**
     * The add script for a view's generations in one shard: {@link RedisLayerScripts#ADD} in shard 0 when this
     * instance reads its layers (they are all in shard 0; a next generation of several shards takes its other shards'
     * keys through the scripts without layers); else {@code RedisCounterScripts.ADD} when the live or the next
     * generation counts, since it sets the bits of the other (a rebuild may change the kind); else
     * {@code RedisScripts.ADD}.
     */
    static LuaScript addFor(RedisFilterView view, int shard) {
        if (view.layers != null && shard == 0) {
            return RedisLayerScripts.ADD;
        }
        boolean counting = (view.liveForAdds != null && view.liveForAdds.counting())
                || (view.next != null && view.next.counting());
        return counting ? RedisCounterScripts.ADD : RedisScripts.ADD;
    }

    /**
     * The identity of a filter of this kind and size: at least {@code shards} shards, more when one Redis string would
     * not hold the positions.
     *
     * @throws IllegalArgumentException for a filter that grows by layers and would need more than one string
     */
    RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards);

    /** Redis bytes of {@code count} words starting at {@code from}. */
    byte[] toRedisBytes(long[] words, int from, int count);

    /** Writes Redis bytes (a whole number of words) into {@code words} starting at word {@code from}. */
    void fromRedisBytes(byte[] bytes, long[] words, int from);

    /** Whether a check can read {@code view}'s live generation (of this layout): not layers it has not sized yet. */
    boolean checkable(RedisFilterView view);

    /**
     * A key's check of {@code view}'s live generation (of this layout, {@link #checkable}): one {@code GETRANGE} of its
     * block, or one script that reads its block in every layer.
     */
    RedisKeyCheck<?> check(RedisFilterView view, Object key, RedisKeyCheck.Events events);

    /** Whether a block read with {@code GETRANGE} holds all {@code hashCount} of a key's positions. */
    boolean blockHolds(byte[] block, Hash128 hash, int hashCount);

    /** The script that checks many keys of one shard; {@code null} when each key is checked apart. */
    @Nullable LuaScript checkAll();

    /** Reads {@code source} into a local filter of this layout (bits, or counters) of that size and seed. */
    RedisLocalWords read(KeyFeed source, FilterSizing sizing, int seed);

    /**
     * Whether an upload is merged into the generation being built before the swap ({@link RedisCounters#merge}):
     * counters are added, where the swap's {@code BITOP OR} would OR their bits.
     */
    boolean mergesUploadBeforeSwap();

    /**
     * The keys of a generation besides its bitmaps, for the swap to delete: layers past layer 0, two past the
     * {@code layers} last read (a put may have added layers since).
     */
    List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers);

    /** Positions in use in one shard's bitmap of {@code bytes} bytes: bits set, or counters above zero. */
    long positionsInUse(RedisCounters.Caller via, String bitmap, long bytes);

    /** Layers of {@code view}'s live generation: 1 unless it grows by layers, 0 before they are known. */
    int layerCount(RedisFilterView view);

    /** Blocks a copy of this layout in the JVM holds at most (16 GiB). */
    long maxLocalBlocks();
}
