package io.bloomguard.redis.kind.counting;

import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.kind.BlockGeneration;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.kind.UnlayeredKind;
import io.bloomguard.redis.port.LuaScript;

import java.util.ArrayList;
import java.util.List;

/**
 * A 4-bit counter a position ({@code type: counting}), so that keys can be removed: a key is checked with one
 * {@code GETRANGE} of its 256-byte block, added by {@code CounterScripts.ADD}; a build's counters are added to
 * the generation being built by {@link Counters#merge}, and the fill counts the counters above zero.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class CountingKind extends UnlayeredKind {

    public static final CountingKind INSTANCE = new CountingKind();

    private CountingKind() {
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

    @Override
    public boolean counts() {
        return true;
    }

    @Override
    public LuaScript addScript() {
        return CounterScripts.ADD;
    }

    /** Four bits a position. */
    @Override
    public long maxBlocksPerShard() {
        return MAX_BIT_BLOCKS_PER_SHARD / CountingBlockLayout.COUNTER_BITS;
    }

    @Override
    public byte[] toRedisBytes(long[] words, int from, int count) {
        return CounterCodec.toRedisBytes(words, from, count);
    }

    @Override
    public void fromRedisBytes(byte[] bytes, long[] words, int from) {
        CounterCodec.fromRedisBytes(bytes, words, from);
    }

    @Override
    protected CopiedBits newCopy(RedisFilterIdentity identity, FilterSizing sizing) {
        return new CountingCopiedBits(LocalCountingFilter.create(sizing, identity.seed()), identity);
    }

    @Override
    protected boolean blockHolds(byte[] block, Hash128 hash, int hashCount) {
        return CounterCodec.blockHolds(block, hash, hashCount);
    }

    @Override
    protected LuaScript checkAll() {
        return CounterScripts.CHECK_ALL;
    }

    @Override
    public LocalWords read(KeyFeed source, FilterSizing sizing, int seed) {
        LocalCountingFilter counters = LocalCountingFilter.create(sizing, seed);
        long keys = source.feed(counters::putAll);
        return new LocalWords(counters.sizing(), counters::copyCounterWords, keys, null);
    }

    @Override
    public boolean mergesUploadBeforeSwap() {
        return true;
    }

    @Override
    public long mergeUpload(RedisCaller via, String next, String upload, long bytes) {
        return Counters.merge(via, next, upload, bytes);
    }

    @Override
    protected ScriptCall removal(BlockGeneration generation, Object key, String epoch, String id) {
        RedisFilterIdentity live = generation.identity();
        RedisFilterIdentity.KeyBits located = live.locate(key);
        List<String> args = new ArrayList<>(2 + located.offsets().length);
        args.add(live.fingerprint());
        args.add(epoch);
        for (long offset : located.offsets()) {
            args.add(Long.toString(offset));
        }
        RedisFilterKeys keys = generation.keys();
        int shard = located.shard();
        return new ScriptCall(CounterScripts.REMOVE, List.of(keys.meta(shard), generation.bitmap(shard),
                keys.adds(shard), keys.removal(shard, id)), args, List.of(key));
    }

    /** A snapshot holds bits, not counters. */
    @Override
    public boolean snapshots() {
        return false;
    }

    /** A counter's bits say nothing of whether it is zero: they are counted by a script. */
    @Override
    public long positionsInUse(RedisCaller via, String bitmap, long bytes) {
        return Math.max(0, Counters.nonZero(via, bitmap, bytes));
    }

    @Override
    public long maxLocalBlocks() {
        return LocalCountingFilter.MAX_BLOCKS;
    }
}
