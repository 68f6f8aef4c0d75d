package io.bloomguard.testsupport;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every backend must do. A backend proves itself by extending this class with a factory; the tests
 * use fixed seeds, so a failure is reproducible.
 *
 * <p>Usage: {@code class LocalBloomFilterContractTest extends BloomFilterContractTest { protected BloomFilter
 * createFilter(FilterSizing sizing, int seed) { return LocalBloomFilter.create(sizing, seed); } }}
 */
public abstract class BloomFilterContractTest {

    protected static final int SEED = 0x5eed5eed;

    /** Keys per batch where a test puts or checks many keys at once. */
    private static final int BATCH = 1_000;

    /** A new, empty filter of this backend. */
    protected abstract BloomFilter createFilter(FilterSizing sizing, int seed);

    /**
     * How many times fewer keys the suite puts and checks than at its full size: 1, the default. Over a network each
     * call is a round trip of tens of microseconds, and the full suite takes a minute or more; a backend whose bits are
     * laid out and computed as another backend's that runs the suite at full size (the same code over another client,
     * or with an option on) may run it smaller, with the false-positive bound widened to match its fewer probes.
     */
    protected int scaleDown() {
        return 1;
    }

    /**
     * Whether the filter hashes keys with the seed it was given: {@code false} for a filter the server hashes itself
     * (the native {@code BF.*} kind), whose {@code seed()} is 0.
     */
    protected boolean hashesWithItsSeed() {
        return true;
    }

    /**
     * Whether the estimated count of keys depends on the order they were put in: a filter that counts the puts it
     * found new ({@code BF.CARD}) misses a key whose put met a false positive, and which key that is depends on the
     * keys before it. A filter that estimates from its bits set gives one count for one set of keys.
     */
    protected boolean countDependsOnOrder() {
        return false;
    }

    /**
     * What {@link BloomFilter#approximateElementCount()} should be near after {@code puts} puts of
     * {@code distinctKeys} keys: the distinct keys, the default, for a filter that counts keys by the bits they set; a
     * filter that stores one entry per put (a cuckoo filter's fingerprint copies, which a remove takes back one at a
     * time) counts {@code puts}.
     */
    protected long expectedCount(long distinctKeys, long puts) {
        return distinctKeys;
    }

    /**
     * The false-positive probability this backend's model gives with {@code keys} keys in a filter of {@code sizing}:
     * the Bloom model of {@link FilterSizing} by default; another structure (a cuckoo table) has its own.
     */
    protected double modelFalsePositiveRate(FilterSizing sizing, long keys) {
        return sizing.falsePositiveProbability(keys);
    }

    /**
     * Checks a new filter's layout against its sizing: by default {@code m} and {@code k} are the sizing's; a
     * filter laid out otherwise (a cuckoo table's buckets and fingerprints) checks its own.
     */
    protected void assertLayoutFollows(BloomFilter filter, FilterSizing sizing) {
        assertThat(filter.bitSize()).isEqualTo(sizing.bitSize());
        assertThat(filter.hashCount()).isEqualTo(sizing.hashCount());
    }

    /** {@code count} keys, scaled down for this backend: see {@link #scaleDown()}. */
    private int scaled(int count) {
        return count / scaleDown();
    }

    /** Keys present in a filter: spread-out longs. */
    protected static long[] presentKeys(int count, long seed) {
        return new SplittableRandom(seed).longs(count).toArray();
    }

    @Test
    void neverReportsAPutKeyAsAbsent() {
        BloomFilter filter = createFilter(FilterSizing.of(scaled(50_000), 0.01), SEED);
        long[] keys = presentKeys(scaled(50_000), 1);
        for (long key : keys) {
            filter.put(key);
        }
        for (long key : keys) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
            assertThat(filter.mightContain(Long.toString(key))).as("key \"%d\"", key).isTrue();
        }
        filter.put("user:alice");
        filter.put(UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        assertThat(filter.mightContain("user:alice")).isTrue();
        assertThat(filter.mightContain("123E4567-E89B-12D3-A456-426614174000")).isTrue();
    }

    /**
     * Bound: at full size, the measured rate over 200k absent keys stays at or below ε. Sizing targets 0.95·ε, so
     * the bound is about 2.2 standard deviations of the sampling spread (√(ε/probes) = 0.00022 at ε = 0.01) above the
     * model. With fewer probes ({@link #scaleDown()}), the bound is the model plus three standard deviations of
     * their spread.
     */
    @Test
    void measuredFalsePositiveRateAtExpectedSizeIsWithinTheErrorRate() {
        int n = scaled(100_000);
        double errorRate = 0.01;
        BloomFilter filter = createFilter(FilterSizing.of(n, errorRate), SEED);
        // In batches (one round trip each for a remote store): the rate is the bits', whichever way they are asked;
        // the single-key calls are the other tests'.
        for (long from = 0; from < n; from += BATCH) {
            filter.putAll(LongStream.range(from, Math.min(n, from + BATCH)).boxed().toList());
        }
        int probes = scaled(200_000);
        double model = FilterSizing.DESIGN_MARGIN * errorRate;
        double bound = (scaleDown() == 1) ? errorRate : model + 3 * Math.sqrt(model / probes);
        int falsePositives = 0;
        for (long from = n; from < n + probes; from += BATCH) {
            for (boolean answer : filter.mightContainAll(LongStream.range(from, Math.min(n + probes, from + BATCH))
                    .boxed().toList())) {
                falsePositives += answer ? 1 : 0;
            }
        }
        assertThat((double) falsePositives / probes).isLessThanOrEqualTo(bound);
        assertThat(filter.expectedFpp()).isCloseTo(modelFalsePositiveRate(FilterSizing.of(n, errorRate), n),
                org.assertj.core.data.Percentage.withPercentage(10));
    }

    @Test
    void putReportsWhetherTheKeyWasNewAndIsIdempotent() {
        BloomFilter filter = createFilter(FilterSizing.of(10_000, 0.001), SEED);
        assertThat(filter.put("https://example.com/a")).isTrue();
        assertThat(filter.put("https://example.com/a")).isFalse();
        for (int i = 0; i < 10; i++) {
            filter.put("https://example.com/a");
        }
        assertThat(filter.approximateElementCount()).isEqualTo(expectedCount(1, 12));
        assertThat(filter.put(42)).isTrue();
        assertThat(filter.put(42L)).as("Long 42 is the key Integer 42 already put").isFalse();
        assertThat(filter.put("42")).as("\"42\" too").isFalse();
    }

    /**
     * A new key's put says "new" unless a false positive hides it: of 5,000 new keys, at most the model's rate at
     * 5,000 keys times 5,000 (an upper bound, the rate grows as they go in), plus 4 standard deviations, say otherwise.
     * For the blocked Bloom layout that allows a handful; for a cuckoo table, fuller at the same size, a few dozen.
     */
    @Test
    void batchOperationsAgreeWithSingleOnes() {
        FilterSizing sizing = FilterSizing.of(10_000, 0.01);
        BloomFilter filter = createFilter(sizing, SEED);
        List<Object> keys = new ArrayList<>();
        for (long key : presentKeys(5_000, 2)) {
            keys.add(key);
        }
        double hidden = keys.size() * modelFalsePositiveRate(sizing, keys.size());
        assertThat(filter.putAll(keys)).isBetween(keys.size() - (long) (hidden + 4 * Math.sqrt(hidden)),
                (long) keys.size());
        assertThat(filter.putAll(keys)).isZero();
        List<Object> probes = new ArrayList<>(keys.subList(0, 1_000));
        for (long key : presentKeys(1_000, 3)) {
            probes.add(key);
        }
        boolean[] answers = filter.mightContainAll(probes);
        for (int i = 0; i < probes.size(); i++) {
            assertThat(answers[i]).as("answer %d", i).isEqualTo(filter.mightContain(probes.get(i)));
        }
        for (int i = 0; i < 1_000; i++) {
            assertThat(answers[i]).isTrue();
        }
    }

    @Test
    void approximateElementCountTracksDistinctKeys() {
        int n = scaled(100_000);
        BloomFilter filter = createFilter(FilterSizing.of(n, 0.01), SEED);
        assertThat(filter.approximateElementCount()).isZero();
        for (long key = 0; key < n; key++) {
            filter.put(key);
            if (key % 2 == 0) {
                filter.put(key); // duplicates do not count
            }
        }
        long expected = expectedCount(n, n + (n + 1) / 2);
        assertThat(filter.approximateElementCount()).isBetween((long) (expected * 0.98), (long) (expected * 1.02));
    }

    /**
     * Writers on several threads putting disjoint keys at once must leave every key in: a lost bit update
     * (two writers racing on one word) would show up as a false negative. Sized for twice the keys, so that a filter
     * that grows by layers stays on one: where a layer begins depends on how the threads interleave.
     */
    @Test
    void concurrentWritersLoseNoKey() throws Exception {
        int threads = 4;
        int perThread = scaled(25_000);
        FilterSizing sizing = FilterSizing.of(2L * threads * perThread, 0.01);
        BloomFilter filter = createFilter(sizing, SEED);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long first = (long) t * perThread;
                done.add(pool.submit(() -> {
                    start.await();
                    LongStream.range(first, first + perThread).forEach(filter::put);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        for (long key = 0; key < (long) threads * perThread; key++) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
        BloomFilter sequential = createFilter(sizing, SEED);
        LongStream.range(0, (long) threads * perThread).forEach(sequential::put);
        if (countDependsOnOrder()) {
            // Each count misses the keys whose put met a false positive: about ε of them, in another order.
            assertThat(filter.approximateElementCount()).isCloseTo(sequential.approximateElementCount(),
                    org.assertj.core.data.Offset.offset((long) Math.ceil(sizing.errorRate() * threads * perThread)));
        }
        else {
            assertThat(filter.approximateElementCount()).isEqualTo(sequential.approximateElementCount());
        }
    }

    /** Readers racing a writer see each key from the moment its put returned. */
    @Test
    void aKeyIsVisibleToOtherThreadsOncePutReturns() throws Exception {
        int keys = scaled(20_000);
        BloomFilter filter = createFilter(FilterSizing.of(keys, 0.01), SEED);
        java.util.concurrent.atomic.AtomicLong lastPut = new java.util.concurrent.atomic.AtomicLong(-1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> writer = pool.submit(() -> {
                for (long key = 0; key < keys; key++) {
                    filter.put(key);
                    lastPut.set(key);
                }
            });
            Future<Long> reader = pool.submit(() -> {
                long misses = 0;
                while (!writer.isDone()) {
                    long upTo = lastPut.get();
                    for (long key = Math.max(0, upTo - 50); key <= upTo; key++) {
                        if (!filter.mightContain(key)) {
                            misses++;
                        }
                    }
                }
                return misses;
            });
            writer.get(60, TimeUnit.SECONDS);
            assertThat(reader.get(60, TimeUnit.SECONDS)).isZero();
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sizeFollowsTheSizing() {
        FilterSizing sizing = FilterSizing.of(1_000_000, 0.01);
        BloomFilter filter = createFilter(sizing, SEED);
        assertLayoutFollows(filter, sizing);
        assertThat(filter.sizing()).isEqualTo(sizing);
        assertThat(filter.seed()).isEqualTo(hashesWithItsSeed() ? SEED : 0);
        assertThat(filter.expectedFpp()).isZero();
    }

    @Test
    void sameSeedAndSizeGiveTheSameAnswers() {
        FilterSizing sizing = FilterSizing.of(1_000, 0.01);
        BloomFilter a = createFilter(sizing, SEED);
        BloomFilter b = createFilter(sizing, SEED);
        for (long key = 0; key < 1_000; key++) {
            a.put(key);
            b.put(key);
        }
        for (long key = 1_000; key < 1_000 + scaled(49_000); key++) {
            assertThat(a.mightContain(key)).isEqualTo(b.mightContain(key));
        }
    }
}
