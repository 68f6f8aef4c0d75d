package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Several application instances (each its own client and backend) sharing one filter on one server: it is
 * loaded once, followed while loading, taken over when its loader dies, protected from an instance configured
 * for another size, and rebuilt without losing a concurrent add or keeping a deleted key.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisSharedFilterIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /**
     * An instance that has not joined the filter yet (its key source is handed over at startup) refuses to rebuild
     * it, rather than swap in an empty generation that every instance would trust.
     */
    @Test
    void anInstanceThatHasNotStartedRefusesToRebuild() {
        List<Object> keys = longs(0, 1_000);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter loaded = a.backend.create("not-started", SIZING, 1, 1);
            assertThat(loaded.start(RecordingKeyFeed.of(keys))).isEqualTo(StartOutcome.LOADED_HERE);
            RedisBloomFilter early = b.backend.create("not-started", SIZING, 1, 1);

            assertThat(early.hasKeySource()).isFalse();
            org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(early::rebuild)
                    .withMessageContaining("has not started yet");
            assertThat(loaded.mightContainAll(keys)).as("the stored filter keeps its keys").containsOnly(true);
        }
    }

    @Test
    void theFirstInstanceLoadsTheFilterAndTheNextOnesUseIt() {
        List<Object> keys = longs(0, 10_000);
        RecordingKeyFeed feed = RecordingKeyFeed.of(keys);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("preload", SIZING, 1, 1);
            RedisBloomFilter filterB = b.backend.create("preload", SIZING, 2, 1);

            assertThat(filterA.start(feed)).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filterB.start(feed)).isEqualTo(StartOutcome.ALREADY_LOADED);

            assertThat(feed.calls()).as("times the key source was read").isEqualTo(1);
            assertThat(filterB.trustedToReject()).isTrue();
            assertThat(filterB.seed()).as("B reads with the seed A created the filter with").isEqualTo(1);
            assertThat(filterB.mightContainAll(keys)).containsOnly(true);
            assertThat(filterB.mightContain("created-on-a")).isFalse();
            assertThat(filterA.put("created-on-a")).isTrue();
            assertThat(filterB.mightContain("created-on-a")).isTrue();
        }
    }

    /**
     * An instance with no key source (a worker that only writes, or one whose source bean is in an inactive
     * profile) starts first. It must not load the filter: it could only load it empty, and every instance would
     * then trust that and reject every key. It passes calls through until an instance with a source has loaded
     * the filter, and then trusts it like the others.
     */
    @Test
    void anInstanceWithNoKeySourceNeverLoadsTheFilterButWaitsForOneThatHas() {
        List<Object> keys = longs(0, 10_000);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter follower = a.backend.create("sourceless", SIZING, 1, 1);
            RedisBloomFilter loader = b.backend.create("sourceless", SIZING, 2, 1);

            assertThat(follower.follow()).isEqualTo(StartOutcome.WAITING_FOR_A_LOADER);
            follower.maintain(); // what its background maintenance does: still no load from here
            follower.maintain();
            assertThat(follower.trustedToReject()).isFalse();
            assertThat(follower.mightContainAll(keys)).as("passes calls through").containsOnly(true);
            assertThatThrownBy(follower::rebuild).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no key source on this instance");

            assertThat(loader.start(RecordingKeyFeed.of(keys))).as("nobody loaded it before")
                    .isEqualTo(StartOutcome.LOADED_HERE);
            follower.maintain();
            assertThat(follower.trustedToReject()).isTrue();
            assertThat(follower.mightContainAll(keys)).containsOnly(true);
            assertThat(follower.mightContain("never-added")).isFalse();
        }
    }

    /**
     * A key one instance could not add (its key expression failed after the row was written): the filter is
     * marked stale for every instance, which stop rejecting at once, until a rebuild from the key source (which
     * holds the key) has run on its own.
     */
    @Test
    void aKeyOneInstanceLostMakesEveryInstanceDistrustTheFilterUntilARebuildHasIt() {
        List<Object> database = new CopyOnWriteArrayList<>(longs(0, 1_000));
        RecordingKeyFeed feed = RecordingKeyFeed.reading(() -> database);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("lost", SIZING, 1, 1);
            RedisBloomFilter filterB = b.backend.create("lost", SIZING, 2, 1);
            assertThat(filterA.start(feed)).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filterB.start(feed)).isEqualTo(StartOutcome.ALREADY_LOADED);

            database.add(5_000L); // written, but its key never reached the filter
            filterA.markIncomplete("a key written on A could not be added");
            filterB.refresh();
            assertThat(filterB.trustedToReject()).as("B stops trusting it at once").isFalse();

            await("the filter rebuilt by maintenance").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> filterA.trustedToReject()
                        && filterB.trustedToReject());
            assertThat(filterB.mightContain(5_000L)).as("the lost key, read from the source").isTrue();
            assertThat(feed.calls()).as("rebuilt from the source").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void anInstanceStartingWhileAnotherLoadsPassesCallsThroughUntilTheLoadIsDone() throws Exception {
        List<Object> keys = longs(0, 10_000);
        RecordingKeyFeed feedA = RecordingKeyFeed.of(keys).holdingCallsFrom(1);
        RecordingKeyFeed feedB = RecordingKeyFeed.of(keys);
        ExecutorService loader = Executors.newSingleThreadExecutor();
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("following", SIZING, 1, 1);
            RedisBloomFilter filterB = b.backend.create("following", SIZING, 2, 1);
            Future<StartOutcome> startA = loader.submit(() -> filterA.start(feedA));
            feedA.awaitHeldCall(Duration.ofSeconds(10));

            assertThat(filterB.start(feedB)).isEqualTo(StartOutcome.LOADING_ELSEWHERE);
            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.LOADING);
            assertThat(filterB.trustedToReject()).isFalse();
            assertThat(filterB.mightContain("absent")).as("a check while loading passes through").isTrue();
            assertThat(filterB.mightContainAll(List.of("absent-1", "absent-2"))).containsExactly(true, true);
            // A record saved on B while A reads the source (after A's snapshot of it) must not be lost.
            assertThat(filterB.put("saved-during-load")).isTrue();

            feedA.open();
            assertThat(startA.get(10, TimeUnit.SECONDS)).isEqualTo(StartOutcome.LOADED_HERE);
            filterB.refresh();

            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterB.mightContainAll(keys)).containsOnly(true);
            assertThat(filterB.mightContain("saved-during-load")).isTrue();
            assertThat(filterA.mightContain("saved-during-load")).isTrue();
            assertThat(filterB.mightContain("absent")).isFalse();
        }
        finally {
            feedA.open();
            loader.shutdownNow();
        }
    }

    @Test
    void whenTheLoaderDiesAnotherInstanceTakesOverOnceTheLockExpires() throws Exception {
        List<Object> keys = longs(0, 10_000);
        RecordingKeyFeed feedA = RecordingKeyFeed.of(keys).holdingCallsFrom(1);
        RecordingKeyFeed feedB = RecordingKeyFeed.of(keys);
        ExecutorService loader = Executors.newSingleThreadExecutor();
        TestRedisBackend a = instance();
        AtomicBoolean aClosed = new AtomicBoolean();
        try (TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("takeover", SIZING, 1, 1);
            RedisBloomFilter filterB = b.backend.create("takeover", SIZING, 2, 1);
            Future<StartOutcome> startA = loader.submit(() -> filterA.start(feedA));
            feedA.awaitHeldCall(Duration.ofSeconds(10));
            assertThat(filterB.start(feedB)).isEqualTo(StartOutcome.LOADING_ELSEWHERE);

            // A dies while reading its source: its connection and its lock renewals stop, its start() never returns.
            a.close();
            aClosed.set(true);
            Duration lockTtl = TestRedisBackend.FAST.lockTtl();
            long closedAt = System.nanoTime();
            await("B takes over and loads the filter").atMost(lockTtl.plusSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> filterB.status() == SharedFilterStatus.READY);
            Duration took = Duration.ofNanos(System.nanoTime() - closedAt);

            // A renewed its lock (TTL 3 s) every second until it died, so it outlives A by 2 to 3 s.
            assertThat(took).as("B waited for A's lock to expire, then loaded").isGreaterThan(Duration.ofMillis(1500));
            assertThat(feedB.calls()).as("B read its own key source").isEqualTo(1);
            assertThat(filterB.mightContainAll(keys)).containsOnly(true);
            assertThat(filterB.mightContain("absent")).isFalse();

            // A's thread wakes up on its closed backend: it must not disturb the filter B loaded.
            feedA.open();
            try {
                startA.get(10, TimeUnit.SECONDS);
            }
            catch (ExecutionException ex) {
                // Starting on a closed backend may fail; what matters is that B's filter is intact.
            }
            filterB.refresh();
            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterB.mightContainAll(keys)).containsOnly(true);
        }
        finally {
            feedA.open();
            loader.shutdownNow();
            if (!aClosed.get()) {
                a.close();
            }
        }
    }

    /**
     * An instance configured for more keys than the stored filter holds reports the mismatch, writes in the stored
     * layout, and rebuilds it at its own size; the instance configured for fewer then takes it for its own, grown.
     */
    @Test
    void anInstanceConfiguredForMoreKeysReportsTheMismatchAndWritesInTheStoredLayoutUntilItRebuilds() {
        FilterSizing small = FilterSizing.of(10_000, 0.01);
        FilterSizing large = FilterSizing.of(50_000, 0.01);
        RecordingKeyFeed feedA = RecordingKeyFeed.of(longs(0, 10_000));
        List<Object> keysB = longs(0, 50_000);
        RecordingKeyFeed feedB = RecordingKeyFeed.of(keysB);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("m", small, 1, 1);
            RedisBloomFilter filterB = b.backend.create("m", large, 2, 1);
            assertThat(filterA.start(feedA)).isEqualTo(StartOutcome.LOADED_HERE);
            FilterSnapshot before = filterA.exportSnapshot();

            assertThat(filterB.start(feedB)).isEqualTo(StartOutcome.MISMATCHED);

            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.MISMATCHED);
            assertThat(filterB.trustedToReject()).isFalse();
            assertThat(feedB.calls()).as("B did not load over A's filter").isZero();
            assertThat(filterA.exportSnapshot()).as("stored bits after B started").isEqualTo(before);
            assertThat(filterA.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterB.mightContainAll(longs(0, 10_000))).as("B reads the stored layout").containsOnly(true);
            assertThat(filterA.mightContain("saved-on-b")).isFalse();
            filterB.put("saved-on-b");
            assertThat(filterA.mightContain("saved-on-b")).as("B's add, seen by A").isTrue();

            assertThat(filterB.rebuild()).isEqualTo(50_000);

            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterB.trustedToReject()).isTrue();
            filterA.refresh();
            // B's filter is A's built for more keys, as growth: rebuild builds it: A uses it, at its larger size.
            assertThat(filterA.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterA.capacity()).isEqualTo(50_000);
            assertThat(filterA.mightContainAll(keysB)).containsOnly(true);
            assertThat(filterB.mightContainAll(keysB)).containsOnly(true);
            assertThat(server.command("HGET", "bloom-guard:{m}:meta", "expected-size")).isEqualTo("50000");

            assertThat(filterA.rebuild()).as("A's rebuild keeps the larger size").isEqualTo(10_000);
            filterB.refresh();
            assertThat(filterB.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filterB.capacity()).isEqualTo(50_000);
        }
    }

    /**
     * The key source is a database: a writer commits a record, then adds its key. The rebuild reads the
     * database after announcing the new generation; keys committed later must reach the new generation through
     * the adds, whichever instance makes them.
     */
    @Test
    void aRebuildWhileTwoInstancesAddKeysLosesNone() throws Exception {
        FilterSizing sizing = FilterSizing.of(100_000, 0.01);
        Queue<Object> database = new ConcurrentLinkedQueue<>(longs(0, 10_000));
        RecordingKeyFeed feedA = RecordingKeyFeed.reading(() -> List.copyOf(database))
            .pausingPerBatch(Duration.ofMillis(20));
        RecordingKeyFeed feedB = RecordingKeyFeed.reading(() -> List.copyOf(database));
        ExecutorService writers = Executors.newFixedThreadPool(2);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean rebuilt = new AtomicBoolean();
        Queue<Object> addedBeforeRebuilt = new ConcurrentLinkedQueue<>();
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("rebuilt", sizing, 1, 1);
            RedisBloomFilter filterB = b.backend.create("rebuilt", sizing, 2, 1);
            assertThat(filterA.start(feedA)).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filterB.start(feedB)).isEqualTo(StartOutcome.ALREADY_LOADED);
            String meta = "bloom-guard:{rebuilt}:meta";
            assertThat(server.command("HGET", meta, "generation")).isEqualTo("1");

            AtomicInteger writtenA = new AtomicInteger();
            AtomicInteger writtenB = new AtomicInteger();
            List<Future<?>> running = List.of(
                    writers.submit(() -> write(filterA, "a-", database, writtenA, stop, rebuilt, addedBeforeRebuilt)),
                    writers.submit(() -> write(filterB, "b-", database, writtenB, stop, rebuilt, addedBeforeRebuilt)));
            await("both instances are adding keys").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> writtenA.get() > 200 && writtenB.get() > 200);

            assertThat(filterA.rebuild()).isGreaterThan(10_000);
            rebuilt.set(true);
            int afterA = writtenA.get();
            int afterB = writtenB.get();
            await("both instances add keys after the swap").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> writtenA.get() > afterA + 200 && writtenB.get() > afterB + 200);
            stop.set(true);
            for (Future<?> writer : running) {
                writer.get(10, TimeUnit.SECONDS);
            }

            assertThat(server.command("HGET", meta, "generation")).isEqualTo("2");
            Set<Object> readByRebuild = new HashSet<>(feedA.lastSnapshot());
            long missedBySource = addedBeforeRebuilt.stream().filter(key -> !readByRebuild.contains(key))
                .count();
            assertThat(missedBySource).as("adds during the rebuild that its key source did not see").isPositive();
            List<Object> absentOnA = new ArrayList<>();
            List<Object> absentOnB = new ArrayList<>();
            for (Object key : database) {
                if (!filterA.mightContain(key)) {
                    absentOnA.add(key);
                }
                if (!filterB.mightContain(key)) {
                    absentOnB.add(key);
                }
            }
            assertThat(absentOnA).as("keys A rejects after the rebuild").isEmpty();
            assertThat(absentOnB).as("keys B rejects after the rebuild").isEmpty();
            assertThat(filterA.trustedToReject()).isTrue();
            assertThat(filterB.trustedToReject()).isTrue();
            assertThat(filterA.pendingAdds() + filterB.pendingAdds()).as("adds waiting for replay").isZero();
        }
        finally {
            stop.set(true);
            writers.shutdownNow();
        }
    }

    @Test
    void aRebuildDropsKeysTheSourceNoLongerHas() {
        AtomicReference<List<Object>> database = new AtomicReference<>(longs(0, 11_000));
        RecordingKeyFeed feed = RecordingKeyFeed.reading(database::get);
        List<Object> kept = longs(0, 10_000);
        List<Object> deleted = longs(10_000, 11_000);
        try (TestRedisBackend a = instance(); TestRedisBackend b = instance()) {
            RedisBloomFilter filterA = a.backend.create("deletes", FilterSizing.of(11_000, 0.01), 1, 1);
            RedisBloomFilter filterB = b.backend.create("deletes", FilterSizing.of(11_000, 0.01), 2, 1);
            filterA.start(feed);
            filterB.start(feed);
            assertThat(filterB.mightContainAll(deleted)).containsOnly(true);

            database.set(kept);
            assertThat(filterA.rebuild()).isEqualTo(10_000);

            int stillPassingOnB = 0;
            for (Object key : deleted) {
                stillPassingOnB += filterB.mightContain(key) ? 1 : 0;
            }
            assertThat(stillPassingOnB).as("deleted keys B still lets through, of 1000 (ε = 1%)")
                .isLessThanOrEqualTo(30);
            assertThat(filterB.mightContainAll(kept)).containsOnly(true);
            assertThat(filterA.mightContainAll(kept)).containsOnly(true);
            assertThat(server.command("HGET", "bloom-guard:{deletes}:meta", "generation")).isEqualTo("2");
        }
    }

    private static void write(RedisBloomFilter filter, String prefix, Queue<Object> database, AtomicInteger written,
            AtomicBoolean stop, AtomicBoolean rebuilt, Queue<Object> addedBeforeRebuilt) {
        for (int i = 0; !stop.get(); i++) {
            String key = prefix + i;
            database.add(key); // committed first, as @BloomPut adds after the transaction
            filter.put(key);
            if (!rebuilt.get()) {
                addedBeforeRebuilt.add(key);
            }
            written.incrementAndGet();
        }
    }

    private static TestRedisBackend instance() {
        return TestRedisBackend.on(server, TestRedisBackend.FAST);
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }
}
