package io.bloomguard.redis.kind.counting;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.RedisFilterIdentity;

import java.util.List;

/** A counting filter's counters: Redis's field {@code u4 #p} of shard {@code s} (part {@code s}) is counter p. */
record CountingCopiedBits(LocalCountingFilter counters, RedisFilterIdentity identity) implements CopiedBits {

    private static final int BLOCK_WORDS = CountingBlockLayout.BLOCK_WORDS;

    @Override
    public boolean mightContain(Object key) {
        return counters.mightContain(key);
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return counters.mightContainAll(keys);
    }

    @Override
    public long words(int part) {
        return identity.blocksIn(part) * BLOCK_WORDS;
    }

    @Override
    public void readWords(int part, int fromWord, byte[] bytes) {
        write(identity.firstBlockOf(part) * BLOCK_WORDS + fromWord, bytes, false);
    }

    @Override
    public void learnBlock(long block, byte[] bytes) {
        write(block * BLOCK_WORDS, bytes, true);
    }

    @Override
    public void learnKey(Object key) {
        // Counted twice (here, then as Redis publishes it), a key put and removed would stay in the copy.
    }

    @Override
    public void added(int part, String[] positions, int from) {
        long first = identity.firstBlockOf(part) * BlockedBloomLayout.BLOCK_BITS;
        for (int i = from; i < positions.length; i++) {
            counters.incrementCounter(first + Long.parseLong(positions[i]));
        }
    }

    @Override
    public void removed(int part, String[] positions, int from) {
        long first = identity.firstBlockOf(part) * BlockedBloomLayout.BLOCK_BITS;
        for (int i = from; i < positions.length; i++) {
            counters.decrementCounter(first + Long.parseLong(positions[i]));
        }
    }

    @Override
    public long bytes() {
        return counters.byteSize();
    }

    private void write(long firstWord, byte[] bytes, boolean raise) {
        long[] words = new long[bytes.length / 8];
        CounterCodec.fromRedisBytes(bytes, words, 0);
        counters.writeCounterWords(Math.toIntExact(firstWord), words, words.length, raise);
    }

    /** Counters are written over: see {@link CopiedBits#overwrites}. */
    @Override
    public boolean overwrites() {
        return true;
    }
}
