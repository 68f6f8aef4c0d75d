package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.redis.kind.counting.Counters;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A counting filter in Redis ({@code type: counting}): the counters a loader builds in the JVM and uploads are the
 * ones puts increment with {@code BITFIELD}, removes take keys back without ever losing another (from any instance,
 * concurrently), a rebuild keeps the puts made during it, and a plain and a counting instance of one filter see a
 * mismatch rather than reading each other's positions.
 */
@Timeout(120)
class RedisCountingFilterIT {

    private static final int SEED = 0x5eed5eed;

    private static final AtomicInteger names = new AtomicInteger();

    private static RedisServerProcess server;
    private static TestRedisBackend redis;
    private static RedisClient rawClient;
    private static StatefulRedisConnection<byte[], byte[]> raw;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
        redis = TestRedisBackend.on(server, TestRedisBackend.FAST);
        rawClient = RedisClient.create(server.redisUri());
        raw = rawClient.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterAll
    static void stopRedis() {
        raw.close();
        rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        redis.close();
        server.close();
    }

    /**
     * A filter loaded from its key source (counters built in the JVM, uploaded) holds the same bytes as one filled by
     * puts ({@code BITFIELD INCRBY u4}), each key put twice in both; and the stored identity says it counts.
     */
    @Test
    void uploadedCountersAreTheOnesPutsIncrement() {
        FilterSizing sizing = FilterSizing.of(5_000, 0.01);
        List<Object> keys = longs(0, 5_000);
        List<Object> twice = new ArrayList<>(keys);
        twice.addAll(keys);
        RedisBloomFilter loaded = counting(sizing, RecordingKeyFeed.of(twice));
        RedisBloomFilter put = counting(sizing, KeyFeed.EMPTY);
        put.putAll(keys);
        put.putAll(keys);

        byte[] uploadedBytes = bitmap(loaded);
        assertThat(uploadedBytes).hasSize((int) (sizing.blockCount() * 256)).isEqualTo(bitmap(put));
        assertThat(loaded.mightContainAll(keys)).containsOnly(true);
        assertThat(server.command("HGET", "bloom-guard:{" + loaded.name() + "}:meta", "type")).isEqualTo("counting");
        assertThat(server.command("HGET", "bloom-guard:{" + loaded.name() + "}:meta", "live")).endsWith(".c4");
        LocalCountingFilter local = LocalCountingFilter.create(sizing, SEED);
        keys.forEach(local::put);
        assertThat(loaded.approximateElementCount()).isEqualTo(local.approximateElementCount());
        assertThat(loaded.byteSize()).isEqualTo(local.byteSize());
    }

    /**
     * Half the keys removed: they then pass only as absent keys do, at the rate of a filter holding the other half
     * (the model's rate at n/2 plus 4 standard deviations of the sampling spread), and the other half are all in.
     */
    @Test
    void removedKeysAnswerAbsentAtTheRateOfTheKeysLeft() {
        int n = 20_000;
        FilterSizing sizing = FilterSizing.of(n, 0.01);
        List<Object> keys = longs(1_000_000, n);
        RedisBloomFilter filter = counting(sizing, RecordingKeyFeed.of(keys)); // uploaded, then removed by script
        int removed = n / 2;
        for (int i = 0; i < removed; i++) {
            assertThat(filter.remove(keys.get(i))).as("remove of key %d", i).isTrue();
        }
        boolean[] answers = filter.mightContainAll(keys);
        int stillPassing = 0;
        for (int i = 0; i < n; i++) {
            if (i < removed) {
                stillPassing += answers[i] ? 1 : 0;
                assertThat(filter.mightContain(keys.get(i))).as("single and batch check agree").isEqualTo(answers[i]);
            }
            else {
                assertThat(answers[i]).as("kept key %d", i).isTrue();
                assertThat(filter.mightContain(keys.get(i))).as("kept key %d", i).isTrue();
            }
        }
        double model = sizing.falsePositiveProbability(n - removed);
        double bound = model + 4 * Math.sqrt(model / removed);
        assertThat((double) stillPassing / removed).as("removed keys still passing").isLessThanOrEqualTo(bound);
        assertThat(filter.approximateElementCount()).isBetween((long) (0.97 * (n - removed)),
                (long) (1.03 * (n - removed)));
        assertThat(filter.remove("never-put")).as("a counter at zero: refused").isFalse();
    }

    /** A key put more times than removed is in; removed as often as put, it is gone (at the error rate). */
    @Test
    void aKeyPutMoreTimesThanRemovedIsAlwaysFound() {
        FilterSizing sizing = FilterSizing.of(4_000, 0.01);
        RedisBloomFilter filter = counting(sizing, KeyFeed.EMPTY);
        SplittableRandom random = new SplittableRandom(6);
        List<Object> keys = longs(0, 4_000);
        int[] puts = new int[keys.size()];
        int[] removes = new int[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            puts[i] = 1 + random.nextInt(4);
            removes[i] = (i % 2 == 0) ? random.nextInt(puts[i]) : puts[i]; // even: fewer; odd: as many
        }
        for (int round = 0; round < 4; round++) {
            List<Object> putNow = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                if (round < puts[i]) {
                    putNow.add(keys.get(i));
                }
            }
            filter.putAll(putNow);
            for (int i = 0; i < keys.size(); i++) {
                if (round < removes[i]) {
                    assertThat(filter.remove(keys.get(i))).isTrue();
                }
            }
        }
        boolean[] answers = filter.mightContainAll(keys);
        int gonePassing = 0;
        for (int i = 0; i < keys.size(); i++) {
            if (i % 2 == 0) {
                assertThat(answers[i]).as("key %d put %d times, removed %d", i, puts[i], removes[i]).isTrue();
            }
            else {
                gonePassing += answers[i] ? 1 : 0;
            }
        }
        assertThat(gonePassing).isLessThan(keys.size() / 2 / 100);
    }

    /** A saturated counter never goes down, in Redis as in the JVM: the key stays in rather than another dropping out. */
    @Test
    void aSaturatedCounterIsNeverDecremented() {
        RedisBloomFilter filter = counting(FilterSizing.of(1_000, 0.01), KeyFeed.EMPTY);
        for (int i = 0; i < 20; i++) {
            filter.put("hot");
        }
        assertThat(filter.put("hot")).as("not new").isFalse();
        for (int i = 0; i < 20; i++) {
            filter.remove("hot");
        }
        assertThat(filter.mightContain("hot")).as("saturated: stays").isTrue();
        assertThat(filter.put("warm")).as("new").isTrue();
        assertThat(filter.remove("warm")).isTrue();
        assertThat(filter.mightContain("warm")).isFalse();
    }

    /**
     * The fill of a shard above 256 KiB of counters is estimated from 256 KiB of it: within 2% of the keys the same
     * counters in the JVM give (the sample's spread is about 0.5%).
     */
    @Test
    void theFillOfALargeFilterIsEstimatedFromASample() {
        FilterSizing sizing = FilterSizing.of(400_000, 0.01);
        List<Object> keys = longs(0, 400_000);
        RedisBloomFilter filter = counting(sizing, RecordingKeyFeed.of(keys));
        LocalCountingFilter local = LocalCountingFilter.create(sizing, SEED);
        keys.forEach(local::put);
        assertThat(filter.byteSize()).isGreaterThan(4L * Counters.SAMPLE_BYTES);
        long exact = local.approximateElementCount();
        assertThat(filter.approximateElementCount()).isBetween((long) (0.98 * exact), (long) (1.02 * exact));
    }

    /** A key twice in one batch is counted twice: one remove leaves it in. */
    @Test
    void aKeyPutTwiceInOneBatchIsCountedTwice() {
        RedisBloomFilter filter = counting(FilterSizing.of(1_000, 0.01), KeyFeed.EMPTY);
        assertThat(filter.putAll(List.of("twice", "twice"))).isEqualTo(1);
        assertThat(filter.remove("twice")).isTrue();
        assertThat(filter.mightContain("twice")).isTrue();
        assertThat(filter.remove("twice")).isTrue();
        assertThat(filter.mightContain("twice")).isFalse();
    }

    /**
     * Two instances put and remove overlapping keys at once: each remove follows a put of the same key (by either
     * instance), stable keys are never removed, and a third thread checks the stable keys throughout. None is ever
     * reported absent, and keys put more often than removed are all in at the end.
     */
    @Test
    void concurrentPutsAndRemovesFromTwoInstancesNeverLoseAKey() throws Exception {
        String name = "counting-" + names.incrementAndGet();
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        List<Object> stable = longs(0, 5_000);
        List<Object> churn = longs(100_000, 3_000);
        try (TestRedisBackend other = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter first = redis.backend.createCounting(name, sizing, SEED, 1);
            RedisBloomFilter second = other.backend.createCounting(name, sizing, SEED + 1, 1);
            assertThat(first.start(RecordingKeyFeed.of(stable))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(second.start(RecordingKeyFeed.of(stable))).isEqualTo(StartOutcome.ALREADY_LOADED);
            BlockingQueue<Object> putByFirst = new LinkedBlockingQueue<>();
            BlockingQueue<Object> putBySecond = new LinkedBlockingQueue<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger falseNegatives = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                // Each instance puts every churn key twice and removes, once each, the keys the other one put: net
                // count +2 per key, whatever the interleaving.
                Future<?> a = threads.submit(() -> putThenRemoveOthers(first, churn, putByFirst, putBySecond));
                Future<?> b = threads.submit(() -> putThenRemoveOthers(second, churn, putBySecond, putByFirst));
                Future<?> reader = threads.submit(() -> {
                    for (int i = 0; writing.get(); i = (i + 1) % stable.size()) {
                        falseNegatives.addAndGet(first.mightContain(stable.get(i)) ? 0 : 1);
                    }
                });
                a.get(60, TimeUnit.SECONDS);
                b.get(60, TimeUnit.SECONDS);
                writing.set(false);
                reader.get(10, TimeUnit.SECONDS);
            }
            finally {
                writing.set(false);
                threads.shutdownNow();
            }
            assertThat(falseNegatives).as("stable keys reported absent during the writes").hasValue(0);
            assertThat(second.mightContainAll(stable)).containsOnly(true);
            assertThat(second.mightContainAll(churn)).as("put twice, removed twice of four puts").containsOnly(true);
        }
    }

    private static void putThenRemoveOthers(RedisBloomFilter filter, List<Object> keys, BlockingQueue<Object> mine,
            BlockingQueue<Object> theirs) {
        int removed = 0;
        for (Object key : keys) {
            filter.put(key);
            filter.put(key);
            mine.add(key);
            Object other = theirs.poll();
            if (other != null) {
                assertThat(filter.remove(other)).as("remove of a key put twice").isTrue();
                removed++;
            }
        }
        try {
            for (; removed < keys.size(); removed++) {
                Object other = theirs.poll(30, TimeUnit.SECONDS);
                assertThat(other).as("a key the other instance put").isNotNull();
                assertThat(filter.remove(other)).as("remove of a key put twice").isTrue();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A rebuild reads the key source (removed records gone, new ones in) while puts arrive: keys put during the build
     * reach the new generation, whose counters are the upload's and the puts' added together, so each of them can
     * be removed once again without another key dropping out.
     */
    @Test
    void aRebuildKeepsPutsMadeDuringItAndDropsDeletedRecords() {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        List<Object> database = new ArrayList<>(longs(0, 10_000));
        List<Object> duringBuild = longs(500_000, 2_000);
        String name = "counting-" + names.incrementAndGet();
        RedisBloomFilter filter = redis.backend.createCounting(name, sizing, SEED, 1);
        AtomicBoolean building = new AtomicBoolean();
        KeyFeed feed = batches -> {
            if (building.get()) {
                filter.putAll(duringBuild); // the next generation exists: these reach both
            }
            return RecordingKeyFeed.of(List.copyOf(database)).feed(batches);
        };
        assertThat(filter.start(feed)).isEqualTo(StartOutcome.LOADED_HERE);
        List<Object> deleted = new ArrayList<>(database.subList(0, 5_000));
        database.removeAll(deleted);
        building.set(true);

        assertThat(filter.rebuild()).isEqualTo(5_000);

        assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
        assertThat(filter.mightContainAll(database)).containsOnly(true);
        assertThat(filter.mightContainAll(duringBuild)).as("put during the build").containsOnly(true);
        int deletedPassing = 0;
        for (boolean present : filter.mightContainAll(deleted)) {
            deletedPassing += present ? 1 : 0;
        }
        assertThat(deletedPassing).as("deleted records dropped out").isLessThan(deleted.size() / 100);
        for (Object key : duringBuild) {
            assertThat(filter.remove(key)).isTrue();
        }
        assertThat(filter.mightContainAll(database)).as("after removing the keys put during the build")
                .containsOnly(true);
        assertThat(filter.approximateElementCount()).isBetween(4_850L, 5_150L);
    }

    /**
     * A filter stored with layers ({@code growth: scale}) rebuilt by an instance configured to count (its configuration
     * changed in a rolling deploy, say) while an instance still configured with layers adds keys: once the counting
     * generation swaps in, those keys are in it, where the counting instance reads them, whether it has one shard (the
     * layers' shard) or several (the keys of its other shards are added there).
     */
    @ParameterizedTest(name = "counting generation in {0} shard(s)")
    @ValueSource(ints = { 1, 3 })
    void keysAnInstanceWithLayersAddsWhileACountingInstanceRebuildsAreFoundAfterTheSwap(int shards) {
        FilterSizing sizing = FilterSizing.of(20_000, 0.01);
        List<Object> database = new ArrayList<>(longs(0, 5_000));
        List<Object> duringBuild = longs(700_000, 1_000);
        String name = "counting-" + names.incrementAndGet();
        try (TestRedisBackend other = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter layered = other.backend.createScalable(name, sizing, SEED, AddFailurePolicy.BUFFER);
            assertThat(layered.start(RecordingKeyFeed.of(database))).isEqualTo(StartOutcome.LOADED_HERE);
            RedisBloomFilter counting = redis.backend.createCounting(name, sizing, SEED, shards);
            AtomicBoolean building = new AtomicBoolean();
            AtomicLong heldBack = new AtomicLong(-1);
            KeyFeed feed = batches -> {
                if (building.get()) {
                    layered.refresh(); // it sees the next generation
                    layered.putAll(duringBuild);
                    heldBack.set(layered.pendingAdds());
                }
                return RecordingKeyFeed.of(List.copyOf(database)).feed(batches);
            };
            counting.start(feed);
            building.set(true);

            counting.rebuild();

            assertThat(heldBack).as("the adds were written while the build ran, none kept for later").hasValue(0);
            assertThat(counting.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(counting.mightContainAll(database)).containsOnly(true);
            assertThat(counting.mightContainAll(duringBuild)).as("added with layers during the build")
                    .containsOnly(true);
        }
    }

    /**
     * Deletes that began before a rebuild of the same shape (the same bitmap name and seed), whose removes come after it
     * swapped in: the new generation read the key source after the rows were gone and never counted their keys, so
     * their removes change nothing; taken from it, those of keys passing as false positives (ε = 20%) would take
     * other keys' counts. A remove sent again changes nothing the second time.
     */
    @Test
    void removesOfDeletesThatBeganBeforeARebuildLeaveTheRebuiltGenerationAlone() {
        List<Object> database = new ArrayList<>(longs(0, 1_500));
        RedisBloomFilter filter = counting(FilterSizing.of(1_000, 0.2),
                batches -> RecordingKeyFeed.of(List.copyOf(database)).feed(batches));
        long epoch = filter.buildEpoch(); // the deletes begin
        List<Object> deleted = new ArrayList<>(database.subList(1_000, 1_500));
        database.removeAll(deleted);

        filter.rebuild();

        long removed = deleted.stream().filter(key -> filter.removeAt(key, epoch)).count();
        boolean[] kept = filter.mightContainAll(database);
        List<Object> rejected = new ArrayList<>();
        for (int i = 0; i < kept.length; i++) {
            if (!kept[i]) {
                rejected.add(database.get(i));
            }
        }
        assertThat(rejected).as("kept rows rejected").isEmpty();
        assertThat(removed).as("removes taken by the rebuilt generation").isZero();
        long fresh = filter.buildEpoch();
        assertThat(fresh).as("a rebuild moves the epoch").isNotEqualTo(epoch);
        assertThat(filter.removeAt(database.get(999), fresh)).as("a delete that began after the rebuild").isTrue();
    }

    /** A plain and a counting instance of one filter: the second to start reports a mismatch, and rejects nothing. */
    @Test
    void aPlainAndACountingInstanceOfOneFilterAreAMismatch() {
        FilterSizing sizing = FilterSizing.of(10_000, 0.01);
        List<Object> keys = longs(0, 10_000);
        String name = "counting-" + names.incrementAndGet();
        try (TestRedisBackend other = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter plain = redis.backend.create(name, sizing, SEED, 1);
            RedisBloomFilter counting = other.backend.createCounting(name, sizing, SEED, 1);
            RecordingKeyFeed countingFeed = RecordingKeyFeed.of(keys);
            assertThat(plain.start(RecordingKeyFeed.of(keys))).isEqualTo(StartOutcome.LOADED_HERE);

            assertThat(counting.start(countingFeed)).isEqualTo(StartOutcome.MISMATCHED);

            assertThat(counting.status()).isEqualTo(SharedFilterStatus.MISMATCHED);
            assertThat(counting.trustedToReject()).isFalse();
            assertThat(countingFeed.calls()).as("did not load over the plain filter").isZero();
            assertThat(counting.mightContainAll(keys)).as("reads the stored bits as bits").containsOnly(true);
            assertThat(counting.remove(keys.get(0))).as("no counters to take it from").isFalse();
            counting.put("saved-on-counting");
            assertThat(plain.mightContain("saved-on-counting")).as("its put, as a bit").isTrue();

            counting.rebuild();

            plain.refresh();
            assertThat(plain.status()).isEqualTo(SharedFilterStatus.MISMATCHED);
            assertThat(plain.mightContainAll(keys)).as("reads the stored counters as counters").containsOnly(true);
            assertThat(counting.status()).isEqualTo(SharedFilterStatus.READY);
            assertThatThrownBy(() -> plain.remove(1L)).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    private static RedisBloomFilter counting(FilterSizing sizing, KeyFeed feed) {
        RedisBloomFilter filter = redis.backend.createCounting("counting-" + names.incrementAndGet(), sizing, SEED, 1);
        assertThat(filter.start(feed)).isEqualTo(StartOutcome.LOADED_HERE);
        return filter;
    }

    private static byte[] bitmap(RedisBloomFilter filter) {
        String key = "bloom-guard:{" + filter.name() + "}:meta";
        String live = server.command("HGET", key, "live");
        return raw.sync().get(("bloom-guard:{" + filter.name() + "}:bits:" + live).getBytes(StandardCharsets.UTF_8));
    }

    private static List<Object> longs(long from, int count) {
        List<Object> keys = new ArrayList<>(count);
        for (long i = from; i < from + count; i++) {
            keys.add(i);
        }
        return keys;
    }
}
