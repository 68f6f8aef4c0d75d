package io.bloomguard.redis.layout;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterView;

import java.util.concurrent.CompletableFuture;

/**
 * The one block a key's bits are in, read with one {@code GETRANGE}: 64 bytes of bits, or 256 of a counting
 * filter's counters, of the live generation of the view a check read once.
 *
 * <p>Usage: {@code RedisBlockCheck check = RedisBlockCheck.of(layout, view, key, events);
 * boolean maybe = check.answer(check.send(port).join());}
 */
final class RedisBlockCheck implements RedisKeyCheck<byte[]> {

    private final RedisFilterView view;
    private final RedisLayout layout;
    private final RedisFilterIdentity live;
    private final Hash128 hash;
    private final String bitmap;
    private final long block;
    private final long start;
    private final Events events;

    private RedisBlockCheck(RedisFilterView view, RedisLayout layout, RedisFilterIdentity live, Hash128 hash, String bitmap, long block,
            long start, Events events) {
        this.view = view;
        this.layout = layout;
        this.live = live;
        this.hash = hash;
        this.bitmap = bitmap;
        this.block = block;
        this.start = start;
        this.events = events;
    }

    @Override
    public CompletableFuture<byte[]> send(RedisPort port) {
        return port.getRange(bitmap, start, start + live.bytesPerBlock() - 1);
    }

    @Override
    public boolean answer(byte[] bytes) {
        if (bytes.length < live.bytesPerBlock()) {
            events.bitmapMissing(view);
            return true;
        }
        events.blockRead(view, block, bytes);
        return layout.blockHolds(bytes, hash, live.hashCount());
    }

    /** The block of {@code current}'s live generation (there is one, of {@code layout}) holding a key's bits. */
    static RedisBlockCheck of(RedisLayout layout, RedisFilterView current, Object key, Events events) {
        RedisFilterIdentity live = current.live;
        Hash128 hash = KeyCanonicalizer.hash(key, live.seed());
        long block = BlockedBloomLayout.blockIndex(hash.h1(), (int) live.blockCount());
        int shard = live.shardOf(block);
        long start = (block - live.firstBlockOf(shard)) * live.bytesPerBlock();
        return new RedisBlockCheck(current, layout, live, hash, current.liveKeys[shard], block, start, events);
    }
}
