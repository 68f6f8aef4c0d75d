package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.RebuildableBloomFilter;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A local filter that can be rebuilt from its key source while it serves: the new bits are built beside the live
 * ones and swapped in with one write. Checks read the live filter throughout; every put made from the moment the
 * rebuild begins reaches both, so the swap loses none.
 *
 * <p>A put made before the rebuild began reaches only the old bits, and the key source cannot show a row that is
 * not committed yet: the {@linkplain #buildEpoch() build epoch} changes as the rebuild begins and as it swaps, so that
 * whoever put such a key puts it again once its row has committed. The rebuild reads only after {@code grace}, which
 * covers a write that puts its key and commits at once with no one to put it again.
 *
 * <p>The bits are a {@link LocalBloomFilter}, or whatever local filter the factory it is given makes: a
 * {@link LocalCountingFilter}, a {@link ScalableLocalFilter}. A remove reaches the live filter only, never the one
 * being built: that one reads the key source, and a key removed before the read reached it is not in the new filter,
 * where a remove would take counts that belong to other keys. A key removed after the read reached it stays in the new
 * filter, as a false positive until the next rebuild.
 *
 * <p>Usage: {@code filter.keySource(feed); ... long keys = filter.rebuild();}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RebuildableLocalFilter implements RebuildableBloomFilter {

    private final Function<FilterSizing, ? extends BloomFilter> factory;
    private final Duration grace;
    private final ReentrantLock rebuilding = new ReentrantLock();
    private volatile BloomFilter live;
    /** The filter being built, while a rebuild runs: puts reach it too. */
    private volatile @Nullable BloomFilter next;
    private volatile @Nullable KeyFeed feed;
    /** Moves once a rebuild's puts reach {@link #next}, and once it swaps in or is given up. */
    private final AtomicLong epoch = new AtomicLong();

    /** A plain Bloom filter ({@link LocalBloomFilter}). */
    public RebuildableLocalFilter(FilterSizing sizing, Duration grace) {
        this(sizing, grace, LocalBloomFilter::create);
    }

    /**
     * @param factory makes an empty filter of a size, with a new random seed: the live one now, and each rebuild's
     *                (e.g. {@code LocalCountingFilter::create})
     */
    public RebuildableLocalFilter(FilterSizing sizing, Duration grace,
            Function<FilterSizing, ? extends BloomFilter> factory) {
        this.factory = factory;
        this.grace = grace;
        this.live = factory.apply(sizing);
    }

    @Override
    public void keySource(KeyFeed feed) {
        this.feed = feed;
    }

    @Override
    public boolean hasKeySource() {
        return feed != null;
    }

    /**
     * Builds a new filter (with a new seed, of the live one's size) from the key source and swaps it in.
     *
     * @throws IllegalStateException with no key source, or when a rebuild is already under way
     */
    @Override
    public long rebuild() {
        return rebuild(live.sizing());
    }

    /**
     * Builds a new filter for {@code expectedSize} keys at the live one's error rate, and swaps it in: how it grows.
     *
     * @throws IllegalStateException    with no key source, or when a rebuild is already under way
     * @throws IllegalArgumentException when a local filter cannot be that large
     */
    @Override
    public long rebuild(long expectedSize) {
        return rebuild(FilterSizing.of(expectedSize, live.sizing().errorRate()));
    }

    private long rebuild(FilterSizing sizing) {
        KeyFeed source = feed;
        if (source == null) {
            throw new IllegalStateException("it has no key source to rebuild from (declare preload.sql, or a"
                    + " BloomKeySource or ReactiveBloomKeySource bean for it)");
        }
        if (!rebuilding.tryLock()) {
            throw new IllegalStateException("a rebuild is under way already");
        }
        try {
            BloomFilter building = factory.apply(sizing);
            next = building; // every put from now on reaches it
            epoch.incrementAndGet(); // after: a put that read the epoch before this either reached next or is put again
            try {
                pause(grace);
                long keys = source.feed(building::putAll);
                epoch.incrementAndGet(); // before: a remove that finds this live finds the epoch moved (removeAt)
                live = building; // before next is cleared: a put that reads no next then reads this live
                return keys;
            }
            finally {
                next = null;
                epoch.incrementAndGet();
            }
        }
        finally {
            rebuilding.unlock();
        }
    }

    @Override
    public long buildEpoch() {
        return epoch.get();
    }

    @Override
    public boolean mightContain(Object key) {
        return live.mightContain(key);
    }

    @Override
    public boolean[] mightContainAll(List<?> keys) {
        return live.mightContainAll(keys);
    }

    @Override
    public boolean put(Object key) {
        BloomFilter building = next; // read before live: see rebuild()
        boolean added = live.put(key);
        if (building != null) {
            building.put(key);
        }
        return added;
    }

    @Override
    public long putAll(Iterable<?> keys) {
        BloomFilter building = next;
        if (building == null) {
            return live.putAll(keys);
        }
        List<Object> copy = new java.util.ArrayList<>(); // read once: an Iterable may be a one-pass cursor
        keys.forEach(copy::add);
        long added = live.putAll(copy);
        building.putAll(copy);
        return added;
    }

    /** Removes the key from the live filter only: see the class comment. */
    @Override
    public boolean remove(Object key) {
        return live.remove(key);
    }

    /** The live filter read before the epoch: one swapped in after that read moved the epoch before it was live. */
    @Override
    public boolean removeAt(Object key, long epoch) {
        BloomFilter target = live;
        return this.epoch.get() == epoch && target.remove(key);
    }

    @Override
    public long approximateElementCount() {
        return live.approximateElementCount();
    }

    @Override
    public double expectedFpp() {
        return live.expectedFpp();
    }

    @Override
    public java.util.OptionalLong countedSetBits() {
        return live.countedSetBits();
    }

    @Override
    public int layerCount() {
        return live.layerCount();
    }

    @Override
    public long bitSize() {
        return live.bitSize();
    }

    @Override
    public long byteSize() {
        return live.byteSize();
    }

    @Override
    public long capacity() {
        return live.capacity();
    }

    @Override
    public int hashCount() {
        return live.hashCount();
    }

    /** The live filter's: once it has grown, larger than it was created with. */
    @Override
    public FilterSizing sizing() {
        return live.sizing();
    }

    @Override
    public int seed() {
        return live.seed();
    }

    /** The live filter: for exports and measurements. */
    public BloomFilter live() {
        return live;
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for writes under way to commit", ex);
        }
    }

    @Override
    public String toString() {
        return "RebuildableLocalFilter[" + live + (next != null ? ", rebuilding" : "") + "]";
    }
}
