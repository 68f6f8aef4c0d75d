package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cuckoo filter passes the contract every filter does, adapted where a cuckoo table differs from bits (see the
 * overrides), removes keys without ever losing another, and keeps every key put past its capacity.
 */
@Timeout(120)
class LocalCuckooFilterTest extends BloomFilterContractTest {

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return LocalCuckooFilter.create(sizing, seed);
    }

    /**
     * A fingerprint copy per put up to two, so that a key put twice survives one remove: it counts copies, at most two
     * a key.
     */
    @Override
    protected long expectedCount(long distinctKeys, long puts) {
        return Math.min(puts, LocalCuckooFilter.COPIES * distinctKeys);
    }

    /** Its rate is the table's: fingerprint bits and load, not bits and hashes. */
    @Override
    protected double modelFalsePositiveRate(FilterSizing sizing, long keys) {
        return CuckooLayout.of(sizing).falsePositiveProbability(keys);
    }

    /** Its bits are the table's ({@code f} per slot), and a check reads 2 buckets. */
    @Override
    protected void assertLayoutFollows(BloomFilter filter, FilterSizing sizing) {
        CuckooLayout layout = CuckooLayout.of(sizing);
        assertThat(layout.fingerprintBits()).as("⌈log2(8/0.01)⌉").isEqualTo(10);
        assertThat(layout.bucketCount()).as("at most 95% full at n").isEqualTo(263_158);
        assertThat(filter.bitSize()).isEqualTo(layout.bitSize());
        assertThat(filter.byteSize()).isEqualTo(layout.byteSize() + Long.BYTES);
        assertThat(filter.hashCount()).isEqualTo(2);
    }

    /** A quarter of a counting filter's memory or less at ε = 1% and 0.1%, about a plain one's. */
    @Test
    void takesAFractionOfACountingFiltersMemory() {
        for (double errorRate : new double[] { 0.01, 0.001 }) {
            FilterSizing sizing = FilterSizing.of(1_000_000, errorRate);
            long cuckoo = LocalCuckooFilter.create(sizing, SEED).byteSize();
            long counting = LocalCountingFilter.create(sizing, SEED).byteSize();
            assertThat(cuckoo).as("ε = %s", errorRate).isLessThan(counting / 3)
                    .isLessThan(2 * LocalBloomFilter.create(sizing, SEED).byteSize());
        }
    }

    /**
     * Half the keys removed: the other half are all still in, and a removed key still passes only when another key
     * shares its fingerprint and buckets (its class then held two copies, and stays until a rebuild): at about the
     * false-positive rate of the table holding every key put. Bound: the model at n plus 4 standard deviations over the
     * removed keys. A removed key still passing keeps its class's copy in the count (three keys of one class hold two).
     */
    @Test
    void removedKeysAnswerAbsentUnlessAnotherKeySharesTheirFingerprint() {
        int n = 100_000;
        FilterSizing sizing = FilterSizing.of(n, 0.01);
        LocalCuckooFilter filter = LocalCuckooFilter.create(sizing, SEED);
        long[] keys = presentKeys(n, 5);
        for (long key : keys) {
            filter.put(key);
        }
        int removed = n / 2;
        for (int i = 0; i < removed; i++) {
            assertThat(filter.remove(keys[i])).as("remove of key %d", i).isTrue();
        }
        int stillPassing = 0;
        for (int i = 0; i < removed; i++) {
            stillPassing += filter.mightContain(keys[i]) ? 1 : 0;
        }
        for (int i = removed; i < n; i++) {
            assertThat(filter.mightContain(keys[i])).as("kept key %d", i).isTrue();
        }
        double model = filter.layout().falsePositiveProbability(n);
        double bound = model + 4 * Math.sqrt(model / removed);
        assertThat((double) stillPassing / removed).as("removed keys still passing").isLessThanOrEqualTo(bound);
        long held = filter.approximateElementCount();
        assertThat(held).isBetween((long) n - removed, (long) n - removed + stillPassing);
        assertThat((double) filter.countedSetBits().getAsLong() / filter.bitSize()).as("load")
                .isCloseTo((double) held / filter.layout().slotCount(), org.assertj.core.data.Offset.offset(1e-9));
    }

    /** A key put k times and removed fewer times is in; one removed as often as it was put is gone. */
    @Test
    void aKeyPutMoreTimesThanRemovedIsAlwaysFound() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(20_000, 0.01), SEED);
        SplittableRandom random = new SplittableRandom(6);
        long[] keys = presentKeys(20_000, 7);
        int[] puts = new int[keys.length];
        int[] removes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            puts[i] = 1 + random.nextInt(5);
            removes[i] = (i % 2 == 0) ? random.nextInt(puts[i]) : puts[i]; // even: fewer; odd: as many
        }
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < keys.length; i++) {
                if (round < puts[i]) {
                    filter.put(keys[i]);
                }
            }
            for (int i = 0; i < keys.length; i++) {
                if (round < removes[i] && round < puts[i]) {
                    assertThat(filter.remove(keys[i])).isTrue();
                }
            }
        }
        int gonePassing = 0;
        for (int i = 0; i < keys.length; i++) {
            if (i % 2 == 0) {
                assertThat(filter.mightContain(keys[i])).as("key %d put %d times, removed %d", i, puts[i], removes[i])
                        .isTrue();
            }
            else {
                gonePassing += filter.mightContain(keys[i]) ? 1 : 0;
            }
        }
        assertThat(gonePassing).isLessThan(keys.length / 2 / 100);
    }

    /** A remove of a key whose fingerprint is in neither bucket is refused, and every key put is still in. */
    @Test
    void aRemoveOfAKeyThatIsCertainlyAbsentChangesNothing() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        assertThat(filter.remove("never")).isFalse();
        long[] kept = presentKeys(900, 11);
        for (long key : kept) {
            filter.put(key);
        }
        int refused = 0;
        for (int i = 0; i < 1_000; i++) {
            if (!filter.mightContain("absent:" + i)) {
                assertThat(filter.remove("absent:" + i)).isFalse();
                refused++;
            }
        }
        assertThat(refused).isGreaterThan(950);
        assertThat(filter.approximateElementCount()).isEqualTo(kept.length);
        for (long key : kept) {
            assertThat(filter.mightContain(key)).isTrue();
        }
    }

    /**
     * Past its slots, a put whose eviction chain finds no room keeps the fingerprint in the overflow set: filled to
     * three times its expected size (more keys than slots), every key is found, and removes take them back out of the
     * table and the overflow set alike (but for the few whose class another key shares).
     */
    @Test
    void aKeyPutPastCapacityIsStillFoundAndRemovable() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        long[] keys = presentKeys(3_000, 12);
        for (long key : keys) {
            filter.put(key);
        }
        assertThat(filter.overflowCount()).as("every key the full table could not take")
                .isGreaterThanOrEqualTo(keys.length - filter.layout().slotCount());
        assertThat(filter.byteSize()).isGreaterThan(filter.layout().byteSize()
                + filter.overflowCount() * LocalCuckooFilter.OVERFLOW_ENTRY_BYTES - 1);
        for (long key : keys) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
        for (int i = 0; i < keys.length; i += 2) {
            assertThat(filter.remove(keys[i])).isTrue();
        }
        for (int i = 1; i < keys.length; i += 2) {
            assertThat(filter.mightContain(keys[i])).as("kept key %d", i).isTrue();
        }
        int stillPassing = 0; // removed keys whose class another key shares: two copies, kept until a rebuild
        for (int i = 0; i < keys.length; i += 2) {
            stillPassing += filter.mightContain(keys[i]) ? 1 : 0;
        }
        assertThat(stillPassing).isLessThan(keys.length / 2 / 20);
        assertThat(filter.approximateElementCount()).isBetween((long) keys.length / 2,
                (long) keys.length / 2 + stillPassing);
    }

    /** A key put 20 times (an update puts its key again) holds two copies; a remove then leaves it in until a rebuild. */
    @Test
    void aKeyPutAgainAndAgainStaysThroughARemove() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        assertThat(filter.put("hot")).isTrue();
        for (int i = 1; i < 20; i++) {
            assertThat(filter.put("hot")).isFalse();
        }
        assertThat(filter.approximateElementCount()).as("copies held").isEqualTo(2);
        assertThat(filter.remove("hot")).as("a copy matched").isTrue();
        assertThat(filter.mightContain("hot")).as("sticky at two copies").isTrue();
        assertThat(filter.remove("hot")).isTrue();
        assertThat(filter.mightContain("hot")).isTrue();
        assertThat(filter.approximateElementCount()).isEqualTo(2);
    }

    /** A key put once and removed once is gone, and a second remove is refused. */
    @Test
    void aKeyPutOnceAndRemovedOnceIsGone() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        filter.put("once");
        assertThat(filter.remove("once")).isTrue();
        assertThat(filter.mightContain("once")).isFalse();
        assertThat(filter.remove("once")).isFalse();
        assertThat(filter.approximateElementCount()).isZero();
    }

    /**
     * A key put 1,000 times takes two slots: the other keys' fingerprints stay in the table, nothing goes to the
     * overflow set, and the puts cost no eviction chains.
     */
    @Test
    void aKeyPutAThousandTimesLeavesTheOtherKeysInTheTable() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        long[] others = presentKeys(100, 13);
        for (long key : others) {
            filter.put(key);
        }
        for (int i = 0; i < 1_000; i++) {
            filter.put("hot");
        }
        assertThat(filter.overflowCount()).as("copies in the overflow set").isZero();
        assertThat(filter.byteSize()).isEqualTo(filter.layout().byteSize() + Long.BYTES);
        assertThat(filter.approximateElementCount()).isEqualTo(others.length + 2);
        for (long key : others) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
    }

    /**
     * Property: whatever the order of inserts, updates (a put of a key already in) and deletes (a remove of a key with a
     * row left), every key with a row left is found after each step. Small fingerprints (ε = 10%: 7 bits) and a table
     * filled past its size, so that keys share classes and the overflow set is used; fixed seeds.
     */
    @Test
    void noSequenceOfPutsAndProvenRemovesMakesAKeyWithARowAbsent() {
        for (int run = 0; run < 20; run++) {
            SplittableRandom random = new SplittableRandom(1_000 + run);
            LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(100, 0.1), SEED + run);
            int[] rows = new int[300];
            List<Integer> withRows = new ArrayList<>();
            for (int step = 0; step < 5_000; step++) {
                int roll = random.nextInt(10); // 4 in 10 inserts, 1 an update, 5 deletes: keys come and go
                if (roll < 4 || withRows.isEmpty()) {
                    int key = random.nextInt(rows.length);
                    filter.put(key);
                    if (rows[key]++ == 0) {
                        withRows.add(key);
                    }
                }
                else if (roll < 5) {
                    filter.put(withRows.get(random.nextInt(withRows.size())));
                }
                else {
                    int at = random.nextInt(withRows.size());
                    int key = withRows.get(at);
                    assertThat(filter.remove(key)).as("run %d step %d: remove of key %d", run, step, key).isTrue();
                    if (--rows[key] == 0) {
                        withRows.set(at, withRows.get(withRows.size() - 1));
                        withRows.remove(withRows.size() - 1);
                    }
                }
                for (int key : withRows) {
                    assertThat(filter.mightContain(key)).as("run %d step %d: key %d with %d rows", run, step, key,
                            rows[key]).isTrue();
                }
            }
        }
    }
}
