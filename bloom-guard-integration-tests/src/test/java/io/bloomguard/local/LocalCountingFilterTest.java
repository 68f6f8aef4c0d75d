package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The counting filter passes the contract every filter does, and removes keys without ever losing another. */
@Timeout(120)
class LocalCountingFilterTest extends BloomFilterContractTest {

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return LocalCountingFilter.create(sizing, seed);
    }

    /** Its counters above zero are exactly the bits a plain filter of the same size and seed sets. */
    @Test
    void holdsThePositionsOfAPlainFilter() {
        FilterSizing sizing = FilterSizing.of(10_000, 0.01);
        LocalCountingFilter counting = LocalCountingFilter.create(sizing, SEED);
        LocalBloomFilter plain = LocalBloomFilter.create(sizing, SEED);
        for (long key : presentKeys(10_000, 4)) {
            counting.put(key);
            counting.put(key); // counts, not bits: twice changes nothing a plain filter would show
            plain.put(key);
        }
        assertThat(counting.toWords()).isEqualTo(plain.toWords());
        assertThat(counting.countedSetBits().getAsLong()).isEqualTo(plain.setBitCount());
        assertThat(counting.byteSize()).isEqualTo(4 * sizing.byteSize());
    }

    /**
     * Half the keys removed: they then pass only as absent keys do, at the false-positive rate of a filter holding the
     * other half, and the other half are all still in. Bound: the model's rate at n/2 keys plus 4 standard deviations
     * of the sampling spread over the removed keys.
     */
    @Test
    void removedKeysAnswerAbsentAtTheRateOfTheKeysLeft() {
        int n = 100_000;
        FilterSizing sizing = FilterSizing.of(n, 0.01);
        LocalCountingFilter filter = LocalCountingFilter.create(sizing, SEED);
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
        double model = sizing.falsePositiveProbability(n - removed);
        double bound = model + 4 * Math.sqrt(model / removed);
        assertThat((double) stillPassing / removed).as("removed keys still passing").isLessThanOrEqualTo(bound);
        assertThat(filter.approximateElementCount()).isBetween((long) (0.98 * (n - removed)),
                (long) (1.02 * (n - removed)));
    }

    /** A key put k times and removed fewer times is in; one removed as often as it was put is gone. */
    @Test
    void aKeyPutMoreTimesThanRemovedIsAlwaysFound() {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        LocalCountingFilter filter = LocalCountingFilter.create(sizing, SEED);
        SplittableRandom random = new SplittableRandom(6);
        long[] keys = presentKeys(20_000, 7);
        int[] puts = new int[keys.length];
        int[] removes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            puts[i] = 1 + random.nextInt(5);
            removes[i] = (i % 2 == 0) ? random.nextInt(puts[i]) : puts[i]; // even: fewer; odd: as many
        }
        // Interleaved, as a real workload would: every key's removes follow its own puts.
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < keys.length; i++) {
                if (round < puts[i]) {
                    filter.put(keys[i]);
                }
            }
            for (int i = 0; i < keys.length; i++) {
                if (round < removes[i] && round < puts[i]) {
                    filter.remove(keys[i]);
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
        // The removed half pass as absent keys do at the other half's rate (well under 1% at half the expected keys).
        assertThat(gonePassing).isLessThan(keys.length / 2 / 100);
    }

    /**
     * A counter that reached 15 no longer knows how many keys it counts, and never goes down: the key stays in (as a
     * false positive once removed) rather than some other key dropping out.
     */
    @Test
    void aSaturatedCounterIsNeverDecremented() {
        LocalCountingFilter filter = LocalCountingFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        for (int i = 0; i < 20; i++) {
            filter.put("hot");
        }
        for (int i = 0; i < 3; i++) {
            filter.put("warm");
        }
        for (int i = 0; i < 20; i++) {
            filter.remove("hot");
        }
        for (int i = 0; i < 3; i++) {
            assertThat(filter.remove("warm")).isTrue();
        }
        assertThat(filter.mightContain("hot")).as("saturated: stays").isTrue();
        assertThat(filter.mightContain("warm")).as("removed as often as put").isFalse();
    }

    /** A remove of a key with a counter at zero is refused: nothing changes, and every key put is still in. */
    @Test
    void aRemoveOfAKeyThatIsCertainlyAbsentChangesNothing() {
        LocalCountingFilter filter = LocalCountingFilter.create(FilterSizing.of(1_000, 0.01), SEED);
        assertThat(filter.remove("never")).isFalse();
        filter.put("kept");
        long[] before = filter.toWords();
        int refused = 0;
        for (int i = 0; i < 1_000; i++) {
            if (!filter.mightContain("absent:" + i)) {
                assertThat(filter.remove("absent:" + i)).isFalse();
                refused++;
            }
        }
        assertThat(refused).isGreaterThan(900);
        assertThat(filter.toWords()).isEqualTo(before);
        assertThat(filter.mightContain("kept")).isTrue();
    }

    /**
     * Four threads put and remove the same churning keys at once (each removes only what it put before), while the
     * stable keys, put once beforehand, are checked without pause: none is ever absent. Afterwards every churning key's
     * counts are gone again, so the counters are exactly those of the stable keys alone: no change was lost.
     */
    @Test
    void concurrentPutsAndRemovesOfOverlappingKeysNeverLoseAKey() throws Exception {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        LocalCountingFilter filter = LocalCountingFilter.create(sizing, SEED);
        long[] stable = presentKeys(10_000, 8);
        long[] churning = presentKeys(2_000, 9);
        for (long key : stable) {
            filter.put(key);
        }
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom random = new SplittableRandom(100 + t);
                writers.add(pool.submit(() -> {
                    start.await();
                    long[] held = new long[16];
                    for (int round = 0; round < 20_000; round++) {
                        for (int i = 0; i < held.length; i++) {
                            held[i] = churning[random.nextInt(churning.length)]; // overlaps the other threads' keys
                            filter.put(held[i]);
                        }
                        for (long key : held) {
                            filter.remove(key);
                        }
                    }
                    return null;
                }));
            }
            Future<Long> checker = pool.submit(() -> {
                start.await();
                long misses = 0;
                while (writing.get()) {
                    for (long key : stable) {
                        misses += filter.mightContain(key) ? 0 : 1;
                    }
                }
                return misses;
            });
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(100, TimeUnit.SECONDS);
            }
            writing.set(false);
            assertThat(checker.get(10, TimeUnit.SECONDS)).as("stable keys found absent while others churned").isZero();
        }
        finally {
            writing.set(false);
            pool.shutdownNow();
        }
        LocalCountingFilter stableOnly = LocalCountingFilter.create(sizing, SEED);
        for (long key : stable) {
            stableOnly.put(key);
        }
        assertThat(filter.toWords()).isEqualTo(stableOnly.toWords());
    }
}
