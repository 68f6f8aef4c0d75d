package io.bloomguard.redis.state;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.layout.RedisLayout;
import org.jspecify.annotations.Nullable;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What fixes where a key's bits are in Redis: layout version, block count, hash count, seed, shard count, and
 * whether each position is a bit or a {@link CountingBlockLayout 4-bit counter} ({@code type: counting}).
 * Its {@link #fingerprint()} is part of the bitmap's key name, so an instance that computes positions for
 * another identity reads a key that does not exist ("not ready") instead of someone else's bits (false
 * negatives), and a plain and a counting instance of one filter see each other's filter as another shape.
 *
 * @param layoutVersion {@link BlockedBloomLayout#VERSION} of the bits
 * @param blockCount    blocks of {@value BlockedBloomLayout#BLOCK_BITS} bits in all shards together
 * @param hashCount     bits per key
 * @param seed          hash seed
 * @param shards        number of Redis strings the blocks are split over
 * @param counting      whether each position is a 4-bit counter ({@code BITFIELD} field {@code u4 #p}) rather than a bit
 * @param layered       whether this is layer 0 of a filter that grows by layers ({@code growth: scale}, see
 *                      {@link io.bloomguard.redis.layout.RedisLayers}): an instance that reads this bitmap alone would miss the keys of the others
 */
public record RedisFilterIdentity(int layoutVersion, long blockCount, int hashCount, int seed, int shards, boolean counting,
        boolean layered) {

    /** Blocks in one Redis string at most: a string holds 2³² bits (512 MiB). */
    public static final long MAX_BLOCKS_PER_SHARD = RedisFilterBackend.MAX_BLOCKS_PER_KEY;

    /** Blocks of counters in one Redis string at most: four bits a position. */
    static final long MAX_COUNTING_BLOCKS_PER_SHARD = MAX_BLOCKS_PER_SHARD / CountingBlockLayout.COUNTER_BITS;

    /** What the fingerprint of a counting filter ends with: 4-bit counters. */
    private static final String COUNTING_SUFFIX = ".c" + CountingBlockLayout.COUNTER_BITS;

    /** What the fingerprint of a filter that grows by layers ends with: each layer twice the one before. */
    private static final String LAYERED_SUFFIX = ".x" + ScalableSizing.GROWTH_FACTOR;

    private static final Pattern FINGERPRINT = Pattern.compile(
            "v(\\d+)\\.b(\\d+)\\.k(\\d+)\\.s([0-9a-f]{1,8})\\.n(\\d+)(\\.c4)?(\\.x2)?");

    public RedisFilterIdentity {
        if (shards < 1 || shards > blockCount) {
            throw new IllegalArgumentException("shards must be between 1 and the block count " + blockCount + ", was "
                    + shards);
        }
        if (blocksPerShard(blockCount, shards) > maxBlocksPerShard(counting)) {
            throw new IllegalArgumentException(shards + " shards of " + blockCount + " blocks exceed one Redis string");
        }
        if (layered && (counting || shards != 1)) {
            throw new IllegalArgumentException("a filter that grows by layers is a plain filter on one shard");
        }
    }

    /** A plain or counting filter's identity, which does not grow by layers. */
    RedisFilterIdentity(int layoutVersion, long blockCount, int hashCount, int seed, int shards, boolean counting) {
        this(layoutVersion, blockCount, hashCount, seed, shards, counting, false);
    }

    /** A plain filter's identity: a bit a position. */
    RedisFilterIdentity(int layoutVersion, long blockCount, int hashCount, int seed, int shards) {
        this(layoutVersion, blockCount, hashCount, seed, shards, false);
    }

    /**
     * The identity of a plain filter of this size: at least {@code requestedShards} shards, more when one Redis
     * string would not hold the bits, never more than there are blocks.
     */
    public static RedisFilterIdentity of(FilterSizing sizing, int seed, int requestedShards) {
        return of(sizing, seed, requestedShards, false);
    }

    /** {@link #of(FilterSizing, int, int)} for a plain or a counting filter. */
    public static RedisFilterIdentity of(FilterSizing sizing, int seed, int requestedShards, boolean counting) {
        long perShard = maxBlocksPerShard(counting);
        long needed = (sizing.blockCount() + perShard - 1) / perShard;
        int shards = (int) Math.min(sizing.blockCount(), Math.max(requestedShards, needed));
        return new RedisFilterIdentity(BlockedBloomLayout.VERSION, sizing.blockCount(), sizing.hashCount(), seed, shards,
                counting);
    }

    /** How this generation keeps a key's positions: bits, counters, or bits in layers. */
    public RedisLayout layout() {
        return RedisLayout.of(this);
    }

    /** The same bits as layer 0 of a filter that grows by layers. */
    public RedisFilterIdentity asLayered() {
        return new RedisFilterIdentity(layoutVersion, blockCount, hashCount, seed, shards, counting, true);
    }

    /** This identity's block and hash counts, with {@code configured}'s expected size and error rate. */
    public FilterSizing sizing(FilterSizing configured) {
        return new FilterSizing(configured.expectedSize(), configured.errorRate(), blockCount, hashCount);
    }

    /** Parses a {@link #fingerprint()}; {@code null} for null, empty or a format this version does not know. */
    static @Nullable RedisFilterIdentity parse(@Nullable String fingerprint) {
        if (fingerprint == null) {
            return null;
        }
        Matcher matcher = FINGERPRINT.matcher(fingerprint);
        if (!matcher.matches()) {
            return null;
        }
        try {
            return new RedisFilterIdentity(Integer.parseInt(matcher.group(1)), Long.parseLong(matcher.group(2)),
                    Integer.parseInt(matcher.group(3)), Integer.parseUnsignedInt(matcher.group(4), 16),
                    Integer.parseInt(matcher.group(5)), matcher.group(6) != null, matcher.group(7) != null);
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
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
        return (counting ? COUNTING_SUFFIX : "") + (layered ? LAYERED_SUFFIX : "");
    }

    /**
     * The {@link #fingerprint()} with {@code *} for its seed, e.g. {@code v1.b19531.k7.s*.n1}: safe to show (the seed
     * would let anyone who sees it pick keys that collide), and a {@code SCAN} pattern for the real key.
     */
    public String fingerprintWithoutSeed() {
        return "v" + layoutVersion + ".b" + blockCount + ".k" + hashCount + ".s*.n" + shards + suffix();
    }

    /** Whether the bits were laid out as this version of the code lays them out. */
    boolean readable() {
        return layoutVersion == BlockedBloomLayout.VERSION;
    }

    /** Whether a filter of {@code other}'s shape (seed aside) is what this identity stores. */
    public boolean sameShape(RedisFilterIdentity other) {
        return layoutVersion == other.layoutVersion && blockCount == other.blockCount
                && hashCount == other.hashCount && shards == other.shards && counting == other.counting
                && layered == other.layered;
    }

    /** {@code bloom} or {@code counting}: the {@code type} field of the metadata. */
    public String type() {
        return counting ? "counting" : "bloom";
    }

    /** Bytes of one block in Redis: 64 of bits, or 256 of counters. */
    public int bytesPerBlock() {
        return wordsPerBlock() * Long.BYTES;
    }

    /** 64-bit words of one block: {@link BlockedBloomLayout#BLOCK_WORDS}, or {@link CountingBlockLayout#BLOCK_WORDS}. */
    public int wordsPerBlock() {
        return counting ? CountingBlockLayout.BLOCK_WORDS : BlockedBloomLayout.BLOCK_WORDS;
    }

    long blocksPerShard() {
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

    private static long maxBlocksPerShard(boolean counting) {
        return counting ? MAX_COUNTING_BLOCKS_PER_SHARD : MAX_BLOCKS_PER_SHARD;
    }

    private static long blocksPerShard(long blockCount, int shards) {
        return (blockCount + shards - 1) / shards;
    }
}
