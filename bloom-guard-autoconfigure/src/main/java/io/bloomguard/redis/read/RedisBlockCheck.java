package io.bloomguard.redis.read;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.copy.RedisNearCopy;
import io.bloomguard.redis.layout.RedisBitmapCodec;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterView;
import io.bloomguard.redis.state.RedisStoredState;

/**
 * The one block a key's bits are in, and how to read them from its bytes: 64 bytes of bits, or 256 of a counting
 * filter's counters, of the live generation of the view a check read once.
 *
 * <p>Usage: {@code RedisBlockCheck check = RedisBlockCheck.of(view, key, state, nearCopy);
 * boolean maybe = check.answer(port.getRange(check.bitmap, check.start, check.end()).join());}
 */
public final class RedisBlockCheck {

    private final RedisFilterView view;
    private final RedisFilterIdentity live;
    private final Hash128 hash;
    final String bitmap;
    private final long block;
    final long start;
    private final RedisStoredState state;
    private final RedisNearCopy nearCopy;

    private RedisBlockCheck(RedisFilterView view, RedisFilterIdentity live, Hash128 hash, String bitmap, long block,
            long start, RedisStoredState state, RedisNearCopy nearCopy) {
        this.view = view;
        this.live = live;
        this.hash = hash;
        this.bitmap = bitmap;
        this.block = block;
        this.start = start;
        this.state = state;
        this.nearCopy = nearCopy;
    }

    long end() {
        return start + live.bytesPerBlock() - 1;
    }

    boolean answer(byte[] bytes) {
        if (bytes.length < live.bytesPerBlock()) {
            state.bitmapMissing(view);
            return true;
        }
        nearCopy.learnBlock(view, block, bytes);
        return RedisBitmapCodec.blockHolds(bytes, hash, live.hashCount(), live.counting());
    }

    /**
     * The block of {@code current}'s live generation (there is one) holding a key's bits: the view the caller read,
     * once per check.
     */
    static RedisBlockCheck of(RedisFilterView current, Object key, RedisStoredState state, RedisNearCopy nearCopy) {
        RedisFilterIdentity live = current.live;
        nearCopy.sent(1);
        Hash128 hash = KeyCanonicalizer.hash(key, live.seed());
        long block = BlockedBloomLayout.blockIndex(hash.h1(), (int) live.blockCount());
        int shard = live.shardOf(block);
        long start = (block - live.firstBlockOf(shard)) * live.bytesPerBlock();
        return new RedisBlockCheck(current, live, hash, current.liveKeys[shard], block, start, state, nearCopy);
    }
}
