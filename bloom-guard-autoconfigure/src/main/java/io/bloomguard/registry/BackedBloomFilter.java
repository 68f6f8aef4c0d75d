package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;

import java.util.OptionalLong;

/**
 * What a {@link NamedBloomFilter} reports of the bits its backend holds: their layout (sizing, bits, bytes, hashes,
 * layers, seed), its capacity, and how full it is (keys estimated, false-positive probability, fill), none of which
 * waits on a shared store. The named filter adds its name and spec, its state, checks, writes and rebuilds.
 */
abstract sealed class BackedBloomFilter implements BloomFilter permits NamedBloomFilter {

    final BloomFilter backend;
    /** How this kind of backend carries out the lifecycle: chosen once, so no operation asks the backend's type. */
    final BackendLifecycle lifecycle;

    BackedBloomFilter(BloomFilter backend) {
        this.backend = backend;
        this.lifecycle = BackendLifecycle.of(backend);
    }

    /**
     * Keys estimated from the bits set. A shared filter answers the value its maintenance last read from the store,
     * without waiting on it (and without failing while it is down): {@link NamedBloomFilter#stats()} says when it
     * was read.
     */
    @Override
    public long approximateElementCount() {
        return lifecycle.approximateElementCount();
    }

    /** False-positive probability at the current fill; for a shared filter as last read, as {@link #approximateElementCount()}. */
    @Override
    public double expectedFpp() {
        return lifecycle.expectedFpp();
    }

    /**
     * Set bits over bits. Counted exactly where the backend counts them (a local filter); for a shared filter,
     * derived from the key estimate its maintenance last read, so that asking never waits on the store.
     */
    public double fillRatio() {
        OptionalLong counted = backend.countedSetBits();
        long bits = backend.bitSize();
        if (bits == 0) {
            return 0.0; // disabled: no bits at all
        }
        if (counted.isPresent()) {
            return (double) counted.getAsLong() / bits;
        }
        long keys = approximateElementCount();
        if (keys == Long.MAX_VALUE) {
            return 1.0; // every bit set: the estimate is unbounded
        }
        return Math.min(1.0, sizing().expectedSetBits(keys) / bits);
    }

    /** Keys it holds at its error rate: its expected size, larger once it has grown. */
    @Override
    public long capacity() {
        return backend.capacity();
    }

    @Override
    public long bitSize() {
        return backend.bitSize();
    }

    @Override
    public long byteSize() {
        return backend.byteSize();
    }

    @Override
    public int hashCount() {
        return backend.hashCount();
    }

    @Override
    public int layerCount() {
        return backend.layerCount();
    }

    @Override
    public FilterSizing sizing() {
        return backend.sizing();
    }

    @Override
    public int seed() {
        return backend.seed();
    }

    /** The backend filter holding the bits. */
    public BloomFilter backend() {
        return backend;
    }
}
