package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * How one kind of filter keeps a key's positions in Redis (bits, 4-bit counters, or bits in layers), and all that
 * follows from it: the identity it is stored under, the codec between the JVM's words and Redis bytes, how a key is
 * checked, which script adds keys, what a build reads its key source into, and how the fill is counted. A filter's
 * is chosen once, when it is assembled; a stored generation's is its identity's {@code kind}.
 *
 * <p>Usage: {@code RedisKind layout = view.live.kind(); byte[] bytes = layout.toRedisBytes(words, 0, count);}
 *
 * @since 0.1.0
 */
public interface RedisKind {

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

    /**
     * Opens a stored generation of this kind, as the metadata of shard 0 describes it.
     *
     * @param sizing     its size with the configured expected size and error rate; {@code null} when this instance
     *                   cannot use its shape (it may still read a generation that needs no more than its identity)
     * @param layerCount the metadata's {@code layers} (1 when absent), -1 when unreadable
     * @param build      {@code generation@loaded-at}
     */
    Generation open(RedisFilterIdentity identity, @Nullable FilterSizing sizing, int layerCount, RedisFilterKeys keys,
            String build);

    /**
     * A write of keys into the generations a view names, this kind being the live generation's (or the next one's,
     * while none is live).
     *
     * @param live       the live generation keys go to (its bitmaps may be gone), {@code null} while there is none
     * @param generation the live generation as opened for checks, {@code null} when none is whole
     * @param next       the generation being built, {@code null} when none is
     */
    Adds adds(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next, RedisFilterKeys keys);

    /** Reads {@code source} into a local filter of this layout (bits, or counters) of that size and seed. */
    LocalWords read(KeyFeed source, FilterSizing sizing, int seed);

    /**
     * Whether an upload is merged into the generation being built before the swap (the counting kind's merge):
     * counters are added, where the swap's {@code BITOP OR} would OR their bits.
     */
    boolean mergesUploadBeforeSwap();

    /**
     * Merges one shard's upload into the generation being built ({@link #mergesUploadBeforeSwap} only) and deletes
     * the upload.
     *
     * @param bytes the length of the shard's bitmap
     * @return positions set in the upload; -1 when {@code next} is gone
     */
    default long mergeUpload(RedisCaller via, String next, String upload, long bytes) {
        throw new UnsupportedOperationException(this + " swaps its uploads in as they are");
    }

    /** Whether a snapshot (bits, with their size and seed) holds a generation of this kind. */
    default boolean snapshots() {
        return true;
    }

    /**
     * The keys of a generation besides its bitmaps, for the swap to delete: layers past layer 0, two past the
     * {@code layers} last read (a put may have added layers since).
     */
    List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers);

    /** Positions in use in one shard's bitmap of {@code bytes} bytes: bits set, or counters above zero. */
    long positionsInUse(RedisCaller via, String bitmap, long bytes);

    /**
     * Layers of a filter of this kind whose live generation is {@code live}: 1 unless it grows by layers, when they
     * are counted once sized (0 before).
     */
    int layerCount(@Nullable Generation live);

    /** Blocks a copy of this layout in the JVM holds at most (16 GiB). */
    long maxLocalBlocks();

    /**
     * How a generation of this kind is built inside Redis, for a kind whose filter is a data type of the server;
     * {@code null} for a kind built in the JVM ({@link #read}) and uploaded.
     */
    default @Nullable ServerBuild serverBuild() {
        return null;
    }

    /**
     * The Redis type a generation's data keys hold, which the key-type check expects ({@code string}: a bitmap);
     * {@code null} for a data type of the server's, whose own commands answer {@code WRONGTYPE} in every check.
     */
    default @Nullable String dataKeyType() {
        return "string";
    }

    /** Whether an instance may keep a near copy of it: its positions are bloom-guard's own, in Redis strings. */
    default boolean nearCopies() {
        return true;
    }
}
