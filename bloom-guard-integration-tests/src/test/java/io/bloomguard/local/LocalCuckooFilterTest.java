package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    /** A fingerprint copy per put, so that a key put twice survives one remove: it counts puts, not distinct keys. */
    @Override
    protected long expectedCount(long distinctKeys, long puts) {
        return puts;
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
     * Half the keys removed: they then pass only at the false-positive rate of a table holding the other half, and
     * the other half are all still in. Bound: the model at n/2 plus 4 standard deviations over the removed keys.
     */
    @Test
    void removedKeysAnswerAbsentAtTheRateOfTheKeysLeft() {
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
        double model = filter.layout().falsePositiveProbability(n - removed);
        double bound = model + 4 * Math.sqrt(model / removed);
        assertThat((double) stillPassing / removed).as("removed keys still passing").isLessThanOrEqualTo(bound);
        assertThat(filter.approximateElementCount()).isEqualTo(n - removed);
        assertThat((double) filter.countedSetBits().getAsLong() / filter.bitSize()).as("load")
                .isCloseTo((double) (n - removed) / filter.layout().slotCount(), org.assertj.core.data.Offset.offset(1e-9));
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
     * table and the overflow set alike.
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
        assertThat(filter.approximateElementCount()).isEqualTo(keys.length / 2);
    }

    /** A bucket pair holds 8 fingerprints: the ninth and later copies of one key go to the overflow set, not lost. */
    @Test
    void oneKeyPutMoreTimesThanItsBucketsHoldIsCountedToTheLastRemove() {
        LocalCuckooFilter filter = LocalCuckooFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        for (int i = 0; i < 20; i++) {
            filter.put("hot");
        }
        assertThat(filter.overflowCount()).isEqualTo(12);
        for (int i = 0; i < 19; i++) {
            assertThat(filter.remove("hot")).isTrue();
            assertThat(filter.mightContain("hot")).as("after %d removes of 20 puts", i + 1).isTrue();
        }
        assertThat(filter.remove("hot")).isTrue();
        assertThat(filter.mightContain("hot")).isFalse();
        assertThat(filter.remove("hot")).isFalse();
    }
}
