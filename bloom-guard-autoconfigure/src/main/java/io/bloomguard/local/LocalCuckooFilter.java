package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;

import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.StampedLock;

/**
 * The in-JVM cuckoo filter ({@code type: cuckoo}): keys can be removed, as from a {@link LocalCountingFilter}, at
 * about a quarter of its memory (10.5 bits a key at ε = 1% instead of 42). A put stores an {@code f}-bit fingerprint
 * of the key in one of its two buckets ({@link CuckooLayout}), moving fingerprints already there to their other
 * bucket when both are full; a remove takes a copy of the fingerprint out again.
 *
 * <p>Usage: {@code LocalCuckooFilter sessions = LocalCuckooFilter.create(FilterSizing.of(100_000, 0.01));
 * sessions.put(id); ... sessions.remove(id);}
 *
 * <p><b>Copies.</b> Two keys with the same fingerprint and the same pair of buckets are one key to the filter (a
 * class): a check looks for the same value in the same places. A class is held at most {@value #COPIES} times, as
 * by the native cuckoo kind: a put adds a copy only while fewer than {@value #COPIES} match (in either bucket or the
 * overflow set), and a remove deletes one only when exactly one matches. A key put again and again (an update puts its
 * key again) would otherwise fill its two buckets, then cost {@value #MAX_KICKS} moves a put and push other keys'
 * fingerprints into the overflow set. At {@value #COPIES} copies a class is sticky: it stays until the next rebuild,
 * as a counting filter's saturated counter does.
 *
 * <p><b>Removes.</b> No sequence of puts, and of removes of keys that were put, makes a key put more times than
 * removed absent. A class put {@code r} times more than removed holds {@value #COPIES} copies or at least {@code r}: a
 * put adds a copy unless {@value #COPIES} match already, a remove at {@value #COPIES} changes nothing, and a remove at
 * one copy (so {@code r} is 1) leaves none for {@code r} = 0. So a class with {@code r > 0} holds a copy, and a key put
 * by two rows stays through the delete of one. A remove of a key that was never put (or already removed) whose class
 * holds exactly one copy (a false positive) takes another key's copy, as a counting filter would take its counts: that
 * is why removes need proof that the row is gone, exactly as for {@code type: counting}. A remove of a key whose
 * fingerprint is in neither bucket changes nothing.
 *
 * <p><b>When full.</b> A put that finds both buckets full moves a fingerprint to its other bucket, up to
 * {@value #MAX_KICKS} times; when that finds no room (the table is nearly full), the fingerprint it carries goes into an
 * overflow set, counted by class, which checks and removes read too. So a key is never lost, however far past its
 * expected size the filter is filled: the set costs about {@value #OVERFLOW_ENTRY_BYTES} bytes an entry instead of
 * {@code f} bits, shows in {@link #byteSize()}, and is emptied by the next rebuild, into a table sized for the keys
 * ({@code growth: rebuild}). It never grows by layers: a second table would split a class across tables, and a remove
 * could then take another key's copy from the wrong one.
 *
 * <p><b>Threads.</b> Puts and removes hold a {@link StampedLock}'s write lock: an eviction chain moves fingerprints
 * through other buckets, and a reader must never look at a bucket while the fingerprint it wants is in flight. Checks
 * read without locking and validate the stamp; a check that found nothing while a write ran reads again under the read
 * lock. A check that found the fingerprint needs no validation: finding is never wrong for a key that is in.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LocalCuckooFilter implements BloomFilter {

    /** Copies of a class the filter holds at most: from then on it stays until a rebuild. */
    static final int COPIES = 2;

    /** Moves a put makes before its fingerprint goes to the overflow set: the paper's 500. */
    static final int MAX_KICKS = 500;

    /** Heap an overflow entry takes: a map node, its boxed key and count, its share of the table. */
    static final int OVERFLOW_ENTRY_BYTES = 72;

    private static final SecureRandom SEEDS = new SecureRandom();

    private final FilterSizing sizing;
    private final CuckooLayout layout;
    private final int seed;
    private final int bucketCount;
    private final long fingerprintRange;
    private final CuckooTable table;
    /** Copies that found no slot, by class ({@link #classOf}); changed under the write lock only. */
    private final ConcurrentHashMap<Long, Integer> overflow = new ConcurrentHashMap<>();
    private final StampedLock lock = new StampedLock();
    /** Which slot an eviction takes: seeded, so that a filter fills the same way for the same puts. */
    private final SplittableRandom evictions;
    /** Fingerprints held, in the table and the overflow set; written under the write lock. */
    private volatile long held;
    private volatile long overflowing;

    private LocalCuckooFilter(FilterSizing sizing, int seed) {
        this.sizing = sizing;
        this.layout = CuckooLayout.of(sizing);
        this.seed = seed;
        this.bucketCount = layout.bucketCount();
        this.fingerprintRange = (1L << layout.fingerprintBits()) - 1;
        this.table = new CuckooTable(layout);
        this.evictions = new SplittableRandom(seed);
    }

    /** A filter with a random seed, so that nobody can precompute keys that pass it. */
    public static LocalCuckooFilter create(FilterSizing sizing) {
        return new LocalCuckooFilter(sizing, SEEDS.nextInt());
    }

    /** A filter with a chosen seed: for tests. */
    public static LocalCuckooFilter create(FilterSizing sizing, int seed) {
        return new LocalCuckooFilter(sizing, seed);
    }

    @Override
    public boolean mightContain(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        long fingerprint = fingerprint(hash);
        int first = bucketOf(hash.h1());
        int second = alternate(first, fingerprint);
        long stamp = lock.tryOptimisticRead();
        boolean found = holds(first, second, fingerprint);
        if (found || lock.validate(stamp)) {
            return found;
        }
        stamp = lock.readLock();
        try {
            return holds(first, second, fingerprint);
        }
        finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Stores a copy of the key's fingerprint, unless {@value #COPIES} copies match already.
     *
     * @return {@code true} if no copy matched before, so the key was certainly new
     */
    @Override
    public boolean put(Object key) {
        Slots slots = slotsOf(key);
        long fingerprint = slots.fingerprint();
        int first = slots.first();
        int second = slots.second();
        long stamp = lock.writeLock();
        try {
            int copies = copies(first, second, fingerprint);
            if (copies < COPIES) {
                place(first, second, fingerprint);
                held++;
            }
            return copies == 0;
        }
        finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Takes the key's copy out, from its buckets or the overflow set, when exactly one matches; at {@value #COPIES}
     * the key stays in (until the next rebuild) and the remove changes nothing.
     *
     * @return {@code false} if no copy matched: the key is certainly not in, and nothing changed; {@code true} when a
     * copy matched, whether it was taken out or the key stays, as the native cuckoo kind answers
     */
    @Override
    public boolean remove(Object key) {
        Slots slots = slotsOf(key);
        long fingerprint = slots.fingerprint();
        int first = slots.first();
        int second = slots.second();
        long stamp = lock.writeLock();
        try {
            int copies = copies(first, second, fingerprint);
            if (copies == 1 && (table.delete(first, fingerprint) || table.delete(second, fingerprint)
                    || unOverflow(classOf(first, fingerprint)))) {
                held--;
            }
            return copies > 0;
        }
        finally {
            lock.unlockWrite(stamp);
        }
    }

    /** A key's fingerprint and its two buckets. */
    private record Slots(long fingerprint, int first, int second) {
    }

    /** Where a put or a remove of {@code key} looks (a check computes the same without the record, on its hot path). */
    private Slots slotsOf(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, seed);
        long fingerprint = fingerprint(hash);
        int first = bucketOf(hash.h1());
        return new Slots(fingerprint, first, alternate(first, fingerprint));
    }

    /** Under the write lock: copies of the class in its buckets (each once when they are one) and the overflow set. */
    private int copies(int first, int second, long fingerprint) {
        int copies = table.count(first, fingerprint);
        if (second != first) {
            copies += table.count(second, fingerprint);
        }
        if (overflowing != 0) {
            copies += overflow.getOrDefault(classOf(first, fingerprint), 0);
        }
        return copies;
    }

    private boolean holds(int first, int second, long fingerprint) {
        return table.find(first, fingerprint) >= 0 || table.find(second, fingerprint) >= 0
                || (overflowing != 0 && overflow.containsKey(classOf(first, fingerprint)));
    }

    /** Under the write lock: into a free slot of either bucket, else by evictions, else into the overflow set. */
    private void place(int first, int second, long fingerprint) {
        if (table.add(first, fingerprint) || table.add(second, fingerprint)) {
            return;
        }
        int bucket = evictions.nextBoolean() ? first : second;
        long carried = fingerprint;
        for (int kick = 0; kick < MAX_KICKS; kick++) {
            carried = table.swap(bucket, evictions.nextInt(CuckooLayout.BUCKET_SLOTS), carried);
            bucket = alternate(bucket, carried);
            if (table.add(bucket, carried)) {
                return;
            }
        }
        overflow.merge(classOf(bucket, carried), 1, Integer::sum);
        overflowing++;
    }

    private boolean unOverflow(long fingerprintClass) {
        Integer copies = overflow.get(fingerprintClass);
        if (copies == null) {
            return false;
        }
        if (copies == 1) {
            overflow.remove(fingerprintClass);
        }
        else {
            overflow.put(fingerprintClass, copies - 1);
        }
        overflowing--;
        return true;
    }

    /** 1 to {@code 2^f − 1}: 0 marks an empty slot. */
    private long fingerprint(Hash128 hash) {
        return Long.remainderUnsigned(hash.h2(), fingerprintRange) + 1;
    }

    /** {@code hash}'s high 32 bits scaled to a bucket: uniform for any bucket count, with no division. */
    private int bucketOf(long hash) {
        return (int) (((hash >>> 32) * bucketCount) >>> 32);
    }

    /**
     * The fingerprint's other bucket, {@code (h(fp) − bucket) mod buckets}: its own inverse, so that a fingerprint an
     * eviction moves finds its way back from either bucket, whatever the bucket count.
     */
    private int alternate(int bucket, long fingerprint) {
        int other = bucketOf(fingerprint * 0xc6a4a7935bd1e995L) - bucket;
        return (other < 0) ? other + bucketCount : other;
    }

    /** The fingerprint and the lower of its two buckets: the same for every key a check cannot tell apart. */
    private long classOf(int bucket, long fingerprint) {
        return (fingerprint << 32) | Math.min(bucket, alternate(bucket, fingerprint));
    }

    /**
     * Fingerprints held: a key put twice counts twice, as it takes two slots; a key put more often counts
     * {@value #COPIES} times.
     */
    @Override
    public long approximateElementCount() {
        return held;
    }

    @Override
    public double expectedFpp() {
        return layout.falsePositiveProbability(held - overflowing);
    }

    /** Bits of the table's occupied slots: over {@link #bitSize()}, the table's load (the endpoint's fill). */
    @Override
    public java.util.OptionalLong countedSetBits() {
        return java.util.OptionalLong.of((held - overflowing) * layout.fingerprintBits());
    }

    /** Bits of the table ({@code f} per slot). */
    @Override
    public long bitSize() {
        return layout.bitSize();
    }

    /** The table and the overflow set. */
    @Override
    public long byteSize() {
        return table.byteSize() + overflowing * OVERFLOW_ENTRY_BYTES;
    }

    /** Buckets a check reads: 2. */
    @Override
    public int hashCount() {
        return 2;
    }

    @Override
    public FilterSizing sizing() {
        return sizing;
    }

    @Override
    public int seed() {
        return seed;
    }

    /** Copies that found no slot and are held in the overflow set. */
    public long overflowCount() {
        return overflowing;
    }

    /** The table's layout. */
    public CuckooLayout layout() {
        return layout;
    }

    @Override
    public String toString() {
        return "LocalCuckooFilter[buckets=" + layout.bucketCount() + ", f=" + layout.fingerprintBits() + ", n="
                + sizing.expectedSize() + ", ε=" + sizing.errorRate() + ", held=" + held + ", overflow="
                + overflowing + "]";
    }
}
