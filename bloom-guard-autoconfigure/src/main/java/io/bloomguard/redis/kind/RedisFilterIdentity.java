package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import org.jspecify.annotations.Nullable;

import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What fixes where a key's bits are in Redis: layout version, block count, hash count, seed, shard count, and the
 * {@link BlockKind kind} of its positions (bits, {@link CountingBlockLayout 4-bit counters} for {@code type: counting},
 * or layer 0 of a filter that grows by layers). Its {@link #fingerprint()} is part of the bitmap's key name, so an
 * instance that computes positions for another identity reads a key that does not exist ("not ready") instead of
 * someone else's bits (false negatives), and instances of two kinds see each other's filter as another shape.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param layoutVersion {@link BlockedBloomLayout#VERSION} of the bits
 * @param blockCount    blocks of {@value BlockedBloomLayout#BLOCK_BITS} positions in all shards together
 * @param hashCount     positions per key
 * @param seed          hash seed
 * @param shards        number of Redis strings the blocks are split over
 * @param kind          what a position is and how the generation is kept (a layered filter's layer 0 is read with
 *                      its other layers: an instance that reads this bitmap alone would miss their keys)
 * @hidden
 */
public record RedisFilterIdentity(int layoutVersion, long blockCount, int hashCount, int seed, int shards,
        BlockKind kind) {

    private static final Pattern FINGERPRINT = Pattern.compile(
            "v(\\d+)\\.b(\\d+)\\.k(\\d+)\\.s([0-9a-f]{1,8})\\.n(\\d+)((?:\\.[a-z][0-9a-z]*)*)");

    public RedisFilterIdentity {
        if (shards < 1 || shards > blockCount) {
            throw new IllegalArgumentException("shards must be between 1 and the block count " + blockCount + ", was "
                    + shards);
        }
        if (blocksPerShard(blockCount, shards) > kind.maxBlocksPerShard()) {
            throw new IllegalArgumentException(shards + " shards of " + blockCount + " blocks exceed one Redis string");
        }
        kind.checkShards(shards);
    }

    /**
     * The identity of a filter of this size and kind: at least {@code requestedShards} shards, more when one Redis
     * string would not hold the positions, never more than there are blocks.
     *
     * @throws IllegalArgumentException for a kind that cannot be stored in that many shards
     */
    public static RedisFilterIdentity of(FilterSizing sizing, int seed, int requestedShards, BlockKind kind) {
        long perShard = kind.maxBlocksPerShard();
        long needed = (sizing.blockCount() + perShard - 1) / perShard;
        int shards = (int) Math.min(sizing.blockCount(), Math.max(requestedShards, needed));
        return new RedisFilterIdentity(BlockedBloomLayout.VERSION, sizing.blockCount(), sizing.hashCount(), seed, shards,
                kind);
    }

    /** How this generation keeps a key's positions: bits, counters, or bits in layers. */
    public RedisKind layout() {
        return kind;
    }

    /**
     * Whether keys can be removed: each position is a 4-bit counter ({@code type: counting}), or the server's filter
     * deletes ({@code CF.*}).
     */
    public boolean counting() {
        return kind.removes();
    }

    /** Whether this is layer 0 of a filter that grows by layers ({@code growth: scale}). */
    public boolean layered() {
        return kind.layered();
    }

    /** This identity's block and hash counts, with {@code configured}'s expected size and error rate. */
    public FilterSizing sizing(FilterSizing configured) {
        return new FilterSizing(configured.expectedSize(), configured.errorRate(), blockCount, hashCount);
    }

    /**
     * Parses a {@link #fingerprint()} of one of {@code kinds}; {@code null} for null, empty, or a format or kind this
     * version does not know.
     */
    public static @Nullable RedisFilterIdentity parse(@Nullable String fingerprint, Collection<? extends BlockKind> kinds) {
        if (fingerprint == null) {
            return null;
        }
        Matcher matcher = FINGERPRINT.matcher(fingerprint);
        if (!matcher.matches()) {
            return null;
        }
        for (BlockKind kind : kinds) {
            if (kind.suffix().equals(matcher.group(6))) {
                try {
                    return new RedisFilterIdentity(Integer.parseInt(matcher.group(1)), Long.parseLong(matcher.group(2)),
                            Integer.parseInt(matcher.group(3)), Integer.parseUnsignedInt(matcher.group(4), 16),
                            Integer.parseInt(matcher.group(5)), kind);
                }
                catch (IllegalArgumentException ex) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * E.g. {@code v1.b19531.k7.s3f2a1b9c.n1}, with {@code .c4} at the end for a counting filter and {@code .x2} for
     * one that grows by layers: readable in {@code redis-cli}, and parsed back by {@link #parse}.
     */
    public String fingerprint() {
        return "v" + layoutVersion + ".b" + blockCount + ".k" + hashCount + ".s" + Integer.toHexString(seed) + ".n"
                + shards + suffix();
    }

    private String suffix() {
        return kind.suffix();
    }

    /**
     * The {@link #fingerprint()} with {@code *} for its seed, e.g. {@code v1.b19531.k7.s*.n1}: safe to show (the seed
     * would let anyone who sees it pick keys that collide), and a {@code SCAN} pattern for the real key.
     */
    public String fingerprintWithoutSeed() {
        return "v" + layoutVersion + ".b" + blockCount + ".k" + hashCount + ".s*.n" + shards + suffix();
    }

    /** Whether the bits were laid out as this version of the code lays them out. */
    public boolean readable() {
        return layoutVersion == BlockedBloomLayout.VERSION;
    }

    /** Whether a filter of {@code other}'s shape (seed aside) is what this identity stores. */
    public boolean sameShape(RedisFilterIdentity other) {
        return layoutVersion == other.layoutVersion && blockCount == other.blockCount
                && hashCount == other.hashCount && shards == other.shards && kind.equals(other.kind);
    }

    /** {@code bloom} or {@code counting}: the {@code type} field of the metadata. */
    public String type() {
        return kind.type();
    }

    /** Bytes of one block in Redis: 64 of bits, or 256 of counters. */
    public int bytesPerBlock() {
        return wordsPerBlock() * Long.BYTES;
    }

    /** 64-bit words of one block: {@link BlockedBloomLayout#BLOCK_WORDS}, or {@link CountingBlockLayout#BLOCK_WORDS}. */
    public int wordsPerBlock() {
        return kind.wordsPerBlock();
    }

    public long blocksPerShard() {
        return blocksPerShard(blockCount, shards);
    }

    /** Blocks in shard {@code shard} (the last one may be shorter). */
    public long blocksIn(int shard) {
        long first = shard * blocksPerShard();
        return Math.min(blocksPerShard(), blockCount - first);
    }

    /** Shard holding block {@code block}. */
    public int shardOf(long block) {
        return (int) (block / blocksPerShard());
    }

    /** First block of shard {@code shard}. */
    public long firstBlockOf(int shard) {
        return shard * blocksPerShard();
    }

    /** Where a key's bits are in a bitmap of this identity: its shard, and the bits' offsets in that shard. */
    public KeyBits locate(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        int blocks = (int) blockCount;
        int shard = shardOf(BlockedBloomLayout.blockIndex(hash.h1(), blocks));
        // The layout numbers bits across all blocks; a shard's bitmap starts at its own first block.
        long shift = firstBlockOf(shard) * BlockedBloomLayout.BLOCK_BITS;
        long[] offsets = BlockedBloomLayout.bitIndexes(hash, blocks, hashCount);
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] -= shift;
        }
        return new KeyBits(shard, offsets);
    }

    /** A key's shard and its bit offsets in that shard's bitmap. */
    public record KeyBits(int shard, long[] offsets) {
    }

    private static long blocksPerShard(long blockCount, int shards) {
        return (blockCount + shards - 1) / shards;
    }
}
