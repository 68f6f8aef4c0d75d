package io.bloomguard.redis.layout;

import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.state.RedisFilterIdentity;

/**
 * A 4-bit counter a position ({@code type: counting}), so that keys can be removed: a key is checked with one
 * {@code GETRANGE} of its 256-byte block, added by {@code RedisCounterScripts.ADD}; a build's counters are added to
 * the generation being built by {@link RedisCounters#merge}, and the fill counts the counters above zero.
 */
public final class CountingLayout extends UnlayeredLayout {

    public static final CountingLayout INSTANCE = new CountingLayout();

    private CountingLayout() {
    }

    @Override
    public RedisFilterIdentity identity(FilterSizing sizing, int seed, int shards) {
        return RedisFilterIdentity.of(sizing, seed, shards, this);
    }

    /** Counters of {@value CountingBlockLayout#COUNTER_BITS} bits. */
    @Override
    public String suffix() {
        return ".c" + CountingBlockLayout.COUNTER_BITS;
    }

    @Override
    public String type() {
        return "counting";
    }

    @Override
    public int wordsPerBlock() {
        return CountingBlockLayout.BLOCK_WORDS;
    }

    /** Four bits a position. */
    @Override
    public long maxBlocksPerShard() {
        return MAX_BIT_BLOCKS_PER_SHARD / CountingBlockLayout.COUNTER_BITS;
    }

    @Override
    public byte[] toRedisBytes(long[] words, int from, int count) {
        return RedisCounterCodec.toRedisBytes(words, from, count);
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        RedisCounterCodec.fromRedisBytes(bytes, words, from);
    }

    @Override
    public boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        return RedisCounterCodec.blockHolds(block, hash, hashCount);
    }

    @Override
    public LuaScript checkAll() {
        return RedisCounterScripts.CHECK_ALL;
    }

    @Override
    public RedisLocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        LocalCountingFilter counters = LocalCountingFilter.create(sizing, seed);
        long keys = source.feed(counters::putAll);
        return new RedisLocalWords(counters.sizing(), counters::copyCounterWords, keys, null);
    }

    @Override
    public boolean mergesUploadBeforeSwap() {
        return true;
    }

    /** A counter's bits say nothing of whether it is zero: they are counted by a script. */
    @Override
    public long positionsInUse(RedisCounters.Caller via, String bitmap, long bytes) {
        return Math.max(0, RedisCounters.nonZero(via, bitmap, bytes));
    }

    @Override
    public long maxLocalBlocks() {
        return LocalCountingFilter.MAX_BLOCKS;
    }
}
