package io.bloomguard.redis.kind;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.port.RedisPort;

import java.util.concurrent.CompletableFuture;

/**
 * The one block a key's positions are in, read with one {@code GETRANGE}: 64 bytes of bits, or 256 of a counting
 * filter's counters, of the generation a check's view named.
 *
 * <p>Usage: {@code BlockCheck check = BlockCheck.of(generation, key, events);
 * boolean maybe = check.answer(check.send(port).join());}
 */
final class BlockCheck implements KeyCheck<byte[]> {

    private final BlockGeneration generation;
    private final Hash128 hash;
    private final String bitmap;
    private final long block;
    private final long start;
    private final Events events;

    private BlockCheck(BlockGeneration generation, Hash128 hash, String bitmap, long block, long start,
            Events events) {
        this.generation = generation;
        this.hash = hash;
        this.bitmap = bitmap;
        this.block = block;
        this.start = start;
        this.events = events;
    }

    @Override
    public CompletableFuture<byte[]> send(RedisPort port) {
        return port.getRange(bitmap, start, start + generation.identity().bytesPerBlock() - 1);
    }

    @Override
    public boolean answer(byte[] bytes) {
        RedisFilterIdentity live = generation.identity();
        if (bytes.length < live.bytesPerBlock()) {
            events.bitmapMissing(generation);
            return true;
        }
        events.blockRead(generation, block, bytes);
        return generation.kind().blockHolds(bytes, hash, live.hashCount());
    }

    /** The block of {@code generation} holding a key's positions. */
    static BlockCheck of(BlockGeneration generation, Object key, Events events) {
        RedisFilterIdentity live = generation.identity();
        Hash128 hash = KeyCanonicalizer.hash(key, live.seed());
        long block = BlockedBloomLayout.blockIndex(hash.h1(), (int) live.blockCount());
        int shard = live.shardOf(block);
        long start = (block - live.firstBlockOf(shard)) * live.bytesPerBlock();
        return new BlockCheck(generation, hash, generation.bitmap(shard), block, start, events);
    }
}
