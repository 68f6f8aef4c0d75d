package io.bloomguard.core;

import java.util.List;

/**
 * A Bloom filter over canonical keys (see {@link KeyCanonicalizer}): never answers "absent" for a key that
 * was put, and answers "might contain" for an absent key with about the configured probability.
 *
 * <p>Usage: {@code if (!users.mightContain(id)) return Optional.empty();}
 *
 * <p>Implementations are safe for any number of threads putting and checking at once.
 *
 * @since 0.1.0
 */
public interface BloomFilter {

    /** {@code false} only if {@code key} was certainly never put. */
    boolean mightContain(Object key);

    /**
     * Adds a key; it is visible to every {@link #mightContain} that starts after this returns.
     *
     * @return {@code true} if the filter changed, so the key was certainly new (useful for deduplication);
     * {@code false} if it might have been put before. Two threads putting the same new key at the same moment
     * may both get {@code true} (each may be the one that sets some of its bits): it says "new" reliably to
     * one caller at a time, and is not a lock.
     */
    boolean put(Object key);

    /**
     * Adds every key.
     *
     * @return how many of them changed the filter
     */
    default long putAll(Iterable<?> keys) {
        long changed = 0;
        for (Object key : keys) {
            if (put(key)) {
                changed++;
            }
        }
        return changed;
    }

    /** Checks many keys at once; the answer at {@code i} is {@code mightContain(keys.get(i))}. */
    default boolean[] mightContainAll(List<?> keys) {
        boolean[] answers = new boolean[keys.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = mightContain(keys.get(i));
        }
        return answers;
    }

    /**
     * Takes one put of a key back, for a record that was deleted: only a counting filter ({@code type: counting}) or
     * a cuckoo filter ({@code type: cuckoo}) can. A key put {@code p} times and removed {@code r < p} times is still
     * in; a remove of a key that was never put takes counts (or a fingerprint) that belong to other keys, and may make
     * them absent, so remove only keys that were put.
     *
     * @return {@code true} if the key's counts were taken back; {@code false} if the filter certainly does not hold
     * the key (one of its counters is zero), which then changed nothing
     * @throws UnsupportedOperationException for a plain Bloom filter: its bits do not record how many keys set them
     */
    default boolean remove(Object key) {
        throw new UnsupportedOperationException("a plain Bloom filter cannot remove keys: its bits do not record how"
                + " many keys set them; a filter declared with type: counting or cuckoo can");
    }

    /**
     * Keys the filter holds at its error rate: the expected size it is sized for, or the sum of its layers' for a
     * filter that grows by layers. Past it, the false-positive rate climbs above the error rate.
     */
    default long capacity() {
        return sizing().expectedSize();
    }

    /**
     * Layers a check reads: 1, unless it grows by layers ({@code growth: scale}); for a store's filter as last read,
     * and 0 while it has none yet.
     */
    default int layerCount() {
        return 1;
    }

    /** Bytes its state takes, in memory or in its store. */
    default long byteSize() {
        return bitSize() / 8;
    }

    /** Estimated number of distinct keys put, from how many bits are set. */
    long approximateElementCount();

    /** False-positive probability expected now, at the current estimated number of keys. */
    double expectedFpp();

    /**
     * Bits set, where the filter counts them as it sets them (a filter in this JVM); empty where they would have to
     * be read (a store's), and are estimated from the keys instead. A store's filter that grows by layers gives the
     * count it last read: the keys do not say how they spread over its layers.
     */
    default java.util.OptionalLong countedSetBits() {
        return java.util.OptionalLong.empty();
    }

    /** Number of bits ({@code m}). */
    long bitSize();

    /** Bits set per key ({@code k}). */
    int hashCount();

    /** The sizing this filter was built with. */
    FilterSizing sizing();

    /** Seed of the key hash; part of the filter's identity, as the sizing is. */
    int seed();
}
