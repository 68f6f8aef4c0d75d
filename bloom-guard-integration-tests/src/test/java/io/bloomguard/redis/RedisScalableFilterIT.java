package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.ScalableLocalFilter;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code growth: scale} on a filter shared through Redis: puts past a layer's capacity add a larger layer in Redis,
 * every instance checks every layer, and the measured false-positive rate stays at most ε however full it gets.
 * Two other instances here refresh once an hour, so they check and write with a view that predates each new layer:
 * they must never reject a key put into a layer they have not read yet.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisScalableFilterIT {

    private static final int N = 5_000;

    private static final double ERROR_RATE = 0.01;

    private static final ScalableSizing SCALING = ScalableSizing.of(N, ERROR_RATE);

    private static final FilterSizing FIRST_LAYER = SCALING.layer(0);

    /** An instance that reads the stored state only when a command of its own finds it out of date. */
    private static final RedisBackendSettings HOURLY = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
            .refreshInterval(Duration.ofHours(1)).build();

    private static RedisServerProcess server;

    private final CommittedRows rows = new CommittedRows();

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /**
     * Filled to 4 n it has three layers (n, 2n, 4n). Bound on the measured rate: the layers' rates add up to at most
     * ε/2 + ε/4 + ε/8 = 0.875 ε; over 2·10⁵ probes one standard deviation is under 0.03 ε.
     */
    @Test
    void filledToFourTimesItsExpectedSizeItAddsLayersThatEveryInstanceChecks() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, HOURLY);
                TestRedisBackend c = TestRedisBackend.on(server, HOURLY)) {
            RedisBloomFilter writer = a.backend.createScalable("scaled", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            RedisBloomFilter laggingReader = b.backend.createScalable("scaled", FIRST_LAYER, 8, AddFailurePolicy.BUFFER);
            RedisBloomFilter laggingWriter = c.backend.createScalable("scaled", FIRST_LAYER, 9, AddFailurePolicy.BUFFER);
            rows.commit(N / 2);
            assertThat(writer.start(RecordingKeyFeed.reading(rows::now))).isEqualTo(StartOutcome.LOADED_HERE);
            for (RedisBloomFilter lagging : List.of(laggingReader, laggingWriter)) {
                assertThat(lagging.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
                assertThat(lagging.layerCount()).isEqualTo(1);
            }

            putNew(writer, 4 * N - rows.size());
            assertThat(writer.layerCount()).as("layers of n, 2n and 4n keys, read by the put that added each")
                .isEqualTo(3);
            assertThat(writer.capacity()).isEqualTo(7L * N);
            assertThat(writer.bitSize()).as("bits of the three layers")
                .isEqualTo(FIRST_LAYER.bitSize() + SCALING.layer(1).bitSize() + SCALING.layer(2).bitSize());
            assertThat(writer.approximateElementCount()).as("the keys of all layers, read now")
                .isBetween((long) (0.95 * rows.size()), (long) (1.05 * rows.size()));
            assertThat(writer.countedSetBits()).as("bits of all layers, as that read counted them").isPresent();
            // Layers 0 and 1 full (half their bits set), layer 2 holding a quarter of its keys (16%): 29% of all bits.
            assertThat(writer.countedSetBits().getAsLong()).isBetween(writer.bitSize() / 5, 2 * writer.bitSize() / 5);

            // Its first check finds layers it has not read: it answers "might contain" and reads them at once.
            assertThat(laggingReader.layerCount()).as("it has not read the new layers").isEqualTo(1);
            for (long row : rows.now()) {
                assertThat(laggingReader.mightContain(row)).as("row %d", row).isTrue();
            }
            assertThat(laggingReader.mightContainAll(rows.now())).as("every row, in a batch").containsOnly(true);
            await("the layers read after the first check that found them").atMost(Duration.ofSeconds(5))
                .until(() -> laggingReader.layerCount() == 3);

            // Its first write finds its view out of date, reads the layers, and goes into the newest.
            assertThat(laggingWriter.layerCount()).isEqualTo(1);
            List<Long> written = putNew(laggingWriter, N / 10);
            assertThat(laggingWriter.layerCount()).isEqualTo(3);
            assertThat(writer.mightContainAll(written)).containsOnly(true);

            assertThat(laggingReader.mightContainAll(rows.now())).as("every row").containsOnly(true);
            assertThat(writer.expectedFpp()).as("the model").isLessThanOrEqualTo(ERROR_RATE);
            assertThat(measuredFalsePositiveRate(laggingReader)).isLessThanOrEqualTo(ERROR_RATE);
            assertThat(measuredFalsePositiveRate(writer)).isGreaterThan(0.0).isLessThanOrEqualTo(ERROR_RATE);
        }
    }

    /**
     * Two instances put keys from four threads while layers are added under them, and two others, one of which reads
     * the stored state only when a check tells it to, check keys whose put has returned: not one is rejected.
     */
    @Test
    void keysPutConcurrentlyAcrossNewLayersAreNeverRejected() throws Exception {
        int n = 2_000;
        FilterSizing firstLayer = ScalableSizing.of(n, ERROR_RATE).layer(0);
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend c = TestRedisBackend.on(server, HOURLY)) {
            RedisBloomFilter first = a.backend.createScalable("concurrent", firstLayer, 7, AddFailurePolicy.BUFFER);
            RedisBloomFilter second = b.backend.createScalable("concurrent", firstLayer, 8, AddFailurePolicy.BUFFER);
            RedisBloomFilter lagging = c.backend.createScalable("concurrent", firstLayer, 9, AddFailurePolicy.BUFFER);
            first.start(KeyFeed.EMPTY);
            second.follow();
            lagging.follow();
            List<Long> acknowledged = Collections.synchronizedList(new ArrayList<>());
            List<Long> rejected = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean writing = new AtomicBoolean(true);
            ExecutorService threads = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    RedisBloomFilter writer = (t % 2 == 0) ? first : second;
                    long base = t * 1_000_000L;
                    int batch = 1 + t * 3; // 1, 4, 7 and 10 keys a put
                    writers.add(threads.submit(() -> {
                        for (long key = base; key < base + 4_000; key += batch) {
                            List<Long> keys = new ArrayList<>();
                            for (long k = key; k < Math.min(base + 4_000, key + batch); k++) {
                                keys.add(k);
                            }
                            writer.putAll(keys);
                            acknowledged.addAll(keys);
                        }
                    }));
                }
                List<Future<?>> checkers = new ArrayList<>();
                for (RedisBloomFilter checker : List.of(lagging, second)) {
                    checkers.add(threads.submit(() -> {
                        SplittableRandom pick = new SplittableRandom(37);
                        while (writing.get()) {
                            int size = acknowledged.size();
                            if (size == 0) {
                                continue;
                            }
                            long key = acknowledged.get(pick.nextInt(size));
                            if (!checker.mightContain(key)) {
                                rejected.add(key);
                            }
                        }
                    }));
                }
                for (Future<?> writer : writers) {
                    writer.get(60, TimeUnit.SECONDS);
                }
                writing.set(false);
                for (Future<?> checker : checkers) {
                    checker.get(10, TimeUnit.SECONDS);
                }
            }
            finally {
                threads.shutdownNow();
            }
            assertThat(rejected).as("keys rejected after their put returned").isEmpty();
            first.refresh();
            assertThat(first.layerCount()).as("16,000 keys in layers of 2,000, 4,000 and 8,000 and more").isEqualTo(4);
            for (RedisBloomFilter instance : List.of(first, second, lagging)) {
                assertThat(instance.mightContainAll(List.copyOf(acknowledged))).containsOnly(true);
            }
        }
    }

    /**
     * One layout for both backends: keys put one at a time into a redis and a local scalable filter of the same seed
     * fill the same layers, which add their next layer at the same put and answer every probe alike.
     */
    @Test
    void itGrowsAsALocalScalableFilterOfTheSameSeedDoes() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter redis = a.backend.createScalable("alike", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            redis.start(KeyFeed.EMPTY);
            ScalableLocalFilter local = ScalableLocalFilter.create(FIRST_LAYER, 7);
            SplittableRandom keys = new SplittableRandom(31);
            for (int i = 0; i < 3 * N; i++) {
                long key = keys.nextLong();
                assertThat(redis.put(key)).as("put %d answers alike", i).isEqualTo(local.put(key));
                assertThat(redis.layerCount()).as("layers after put %d", i).isEqualTo(local.layerCount());
            }
            assertThat(local.layerCount()).isEqualTo(2);
            List<Long> probes = new ArrayList<>();
            for (int i = 0; i < 100_000; i++) {
                probes.add(keys.nextLong());
            }
            boolean[] answers = redis.mightContainAll(probes);
            for (int i = 0; i < answers.length; i++) {
                assertThat(answers[i]).as("probe %d", i).isEqualTo(local.mightContain(probes.get(i)));
            }
        }
    }

    /**
     * A rebuild makes the layers one layer 0 that holds as many keys, which every instance configured for the filter
     * recognises; the filter then grows by layers from there.
     */
    @Test
    void aRebuildMakesItsLayersOneLayerThatEveryInstanceUses() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter writer = a.backend.createScalable("merged", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            rows.commit(N / 2);
            writer.start(RecordingKeyFeed.reading(rows::now));
            putNew(writer, 4 * N - rows.size());
            writer.refresh();
            assertThat(writer.layerCount()).isEqualTo(3);

            writer.rebuild();
            assertThat(writer.layerCount()).isEqualTo(1);
            assertThat(writer.capacity()).as("one layer for the three").isEqualTo(7L * N);

            RedisBloomFilter late = b.backend.createScalable("merged", FIRST_LAYER, 8, AddFailurePolicy.BUFFER);
            assertThat(late.follow()).as("started after the rebuild, configured as before")
                .isEqualTo(StartOutcome.ALREADY_LOADED);
            assertThat(late.trustedToReject()).isTrue();
            assertThat(late.capacity()).isEqualTo(7L * N);
            assertThat(late.mightContainAll(rows.now())).as("every row").containsOnly(true);
            assertThat(measuredFalsePositiveRate(late)).isLessThanOrEqualTo(ERROR_RATE);

            putNew(late, 4 * N);
            writer.refresh();
            assertThat(writer.layerCount()).as("grown by a layer of twice the merged one").isEqualTo(2);
            assertThat(writer.capacity()).isEqualTo(7L * N + 14L * N);
            assertThat(writer.mightContainAll(rows.now())).containsOnly(true);

            RedisBloomFilter plain = b.backend.create("merged", FIRST_LAYER, 9, 1);
            plain.follow();
            assertThat(plain.status()).as("a filter that does not grow by layers would miss the keys of the others")
                .isEqualTo(SharedFilterStatus.MISMATCHED);
            assertThatThrownBy(writer::exportSnapshot).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("2 layers");
        }
    }

    /**
     * A layer gone from Redis (evicted, deleted) would let every key through while the filter says it is ready: the
     * check that finds it gone makes the filter not ready, and the instance with the key source rebuilds it.
     */
    @Test
    void aLayerGoneFromRedisMakesItNotReadyUntilItIsRebuilt() {
        RedisClient rawClient = RedisClient.create(server.redisUri());
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                StatefulRedisConnection<String, String> raw = rawClient.connect()) {
            RedisBloomFilter filter = a.backend.createScalable("evicted", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            rows.commit(N / 2);
            filter.start(RecordingKeyFeed.reading(rows::now));
            putNew(filter, 2 * N);
            assertThat(filter.layerCount()).isEqualTo(2);
            List<String> layer1 = raw.sync().keys("bloom-guard:{evicted}:bits:*:layer1");
            assertThat(layer1).hasSize(1);
            raw.sync().del(layer1.get(0));

            assertThat(filter.mightContain(-1L)).as("not rejected by what is left").isTrue();
            assertThat(filter.trustedToReject()).isFalse();
            await("rebuilt from the key source").atMost(Duration.ofSeconds(10))
                .until(() -> filter.status() == SharedFilterStatus.READY && filter.layerCount() == 1);
            assertThat(filter.mightContainAll(rows.now())).as("every row").containsOnly(true);
            assertThat(measuredFalsePositiveRate(filter)).isLessThanOrEqualTo(ERROR_RATE);
        }
        finally {
            rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /**
     * The newest layer deleted, then more puts before any check: a put must not create the layer afresh, short and
     * zero-filled (checks would then read zeros for every key it held, with the filter ready). The put finds it gone,
     * the filter is not ready, and it is rebuilt from its key source.
     */
    @Test
    void aPutAfterTheNewestLayerWasDeletedDoesNotCreateItEmpty() {
        RedisClient rawClient = RedisClient.create(server.redisUri());
        try (TestRedisBackend a = TestRedisBackend.on(server, HOURLY);
                StatefulRedisConnection<String, String> raw = rawClient.connect()) {
            RedisBloomFilter filter = a.backend.createScalable("layer-put", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            rows.commit(N / 2);
            filter.start(RecordingKeyFeed.reading(rows::now));
            putNew(filter, 2 * N);
            assertThat(filter.layerCount()).isEqualTo(2);
            String layer1 = raw.sync().keys("bloom-guard:{layer-put}:bits:*:layer1").get(0);
            raw.sync().del(layer1);

            putNew(filter, 200);
            assertThat(raw.sync().exists(layer1)).as("the put did not create the layer afresh").isZero();
            assertThat(filter.trustedToReject()).as("the put found the layer gone").isFalse();
            assertThat(filter.mightContainAll(rows.now())).as("every row, while it is gone").containsOnly(true);
            filter.refresh();
            assertThat(filter.status()).isNotEqualTo(SharedFilterStatus.READY);

            filter.rebuild();
            assertThat(filter.layerCount()).as("rebuilt into one layer").isEqualTo(1);
            assertThat(filter.mightContainAll(rows.now())).as("every row, rebuilt").containsOnly(true);
        }
        finally {
            rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** A key source that holds more keys than layer 0 is loaded into one layer 0 for twice as many, not past ε. */
    @Test
    void aKeySourceLargerThanItsFirstLayerIsLoadedIntoOneLargerLayer() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = a.backend.createScalable("outgrown", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            rows.commit(4 * N);
            assertThat(filter.start(RecordingKeyFeed.reading(rows::now))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filter.layerCount()).isEqualTo(1);
            assertThat(filter.capacity()).isEqualTo(8L * N);
            assertThat(filter.mightContainAll(rows.now())).containsOnly(true);
            assertThat(measuredFalsePositiveRate(filter)).isLessThanOrEqualTo(ERROR_RATE);
        }
    }

    /**
     * A filter with layers rebuilt by an instance configured without them and with three shards (a rolling change of
     * configuration) while an instance still configured with layers puts keys: the keys of the new generation's shard
     * 0 go in with the layers' script, the others through its shards' own, and all of them are found once it swaps in.
     */
    @Test
    void keysPutWithLayersWhileAnotherInstanceRebuildsItInThreeShardsAreFoundAfterTheSwap() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter layered = a.backend.createScalable("reshaped", FIRST_LAYER, 7, AddFailurePolicy.BUFFER);
            rows.commit(N);
            assertThat(layered.start(RecordingKeyFeed.reading(rows::now))).isEqualTo(StartOutcome.LOADED_HERE);
            RedisBloomFilter sharded = b.backend.create("reshaped", FilterSizing.of(2 * N, ERROR_RATE), 7, 3);
            AtomicBoolean building = new AtomicBoolean();
            List<Long> duringBuild = new ArrayList<>();
            KeyFeed feed = batches -> {
                List<Long> before = rows.now(); // the build reads the rows committed before the puts below
                if (building.get()) {
                    layered.refresh(); // it sees the next generation
                    duringBuild.addAll(putNew(layered, 600));
                    assertThat(layered.pendingAdds()).as("written while the build ran, none kept for later")
                            .isZero();
                }
                return RecordingKeyFeed.of(List.copyOf(before)).feed(batches);
            };
            sharded.start(feed);
            building.set(true);

            sharded.rebuild();

            assertThat(sharded.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(duringBuild).hasSize(600);
            assertThat(sharded.mightContainAll(rows.now())).as("every committed row, those put with layers included")
                    .containsOnly(true);
        }
    }

    /**
     * Puts 50 at a time, as concurrent {@code @BloomPut} writes do: a layer is found full by the put that fills it, so
     * it overfills by at most one batch.
     */
    private List<Long> putNew(RedisBloomFilter filter, int count) {
        return rows.putNew(filter::putAll, count, 50);
    }

    /** Of 2·10⁵ keys never put, the share the filter lets through. */
    private static double measuredFalsePositiveRate(RedisBloomFilter filter) {
        SplittableRandom absent = new SplittableRandom(29);
        int probes = 200_000;
        int passed = 0;
        for (int done = 0; done < probes; done += 10_000) {
            List<Long> batch = new ArrayList<>(10_000);
            for (int i = 0; i < 10_000; i++) {
                batch.add(1_000_000_000L + (absent.nextLong() >>> 1));
            }
            for (boolean answer : filter.mightContainAll(batch)) {
                passed += answer ? 1 : 0;
            }
        }
        return (double) passed / probes;
    }
}
