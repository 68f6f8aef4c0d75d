package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.redis.port.LuaScript;

/**
 * A kind whose generations are {@link io.bloomguard.core.BlockedBloomLayout blocks} of positions split over shards,
 * named by a {@link RedisFilterIdentity}: what the identity needs of its kind to name and
 * size a generation. The fingerprint suffix and the {@code type} field are stored data: they never change.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public abstract class BlockKind implements RedisKind {

    /** Blocks of bits in one Redis string at most: a string holds 2³² bits (512 MiB). */
    public static final long MAX_BIT_BLOCKS_PER_SHARD = (1L << 32) / BlockedBloomLayout.BLOCK_BITS;

    /** What ends this kind's fingerprints ({@code ""}, {@code ".c4"}, {@code ".x2"}): part of its key names. */
    public abstract String suffix();

    /** {@code bloom} or {@code counting}: the metadata's {@code type} field, and what the access check tries. */
    public abstract String type();

    /** 64-bit words of one block: {@link BlockedBloomLayout#BLOCK_WORDS}, or {@link CountingBlockLayout#BLOCK_WORDS}. */
    public int wordsPerBlock() {
        return BlockedBloomLayout.BLOCK_WORDS;
    }

    /** Blocks one Redis string holds at most. */
    public long maxBlocksPerShard() {
        return MAX_BIT_BLOCKS_PER_SHARD;
    }

    /**
     * Whether its positions are counters: its add script then writes a generation of any block kind (bits where
     * the other has bits), and is the one used while either generation of a rebuild counts.
     */
    public boolean counts() {
        return false;
    }

    /** Whether a key can be taken back ({@code remove}): counters, or a server's filter that deletes. */
    public boolean removes() {
        return wordsPerBlock() != BlockedBloomLayout.BLOCK_WORDS;
    }

    /** The add script of its generations without layers: see {@link BlockAdds}. */
    public LuaScript addScript() {
        return RedisScripts.ADD;
    }

    /** Whether a generation of this kind is layer 0 of layers that are read together. */
    public boolean layered() {
        return false;
    }

    /**
     * Refuses a shard count this kind cannot be stored in.
     *
     * @throws IllegalArgumentException saying why
     */
    public void checkShards(int shards) {
    }

    @Override
    public String toString() {
        return getClass().getSimpleName();
    }
}
