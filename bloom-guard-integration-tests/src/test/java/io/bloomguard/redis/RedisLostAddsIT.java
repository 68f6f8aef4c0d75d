package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.testsupport.redis.RedisBloomModule;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis restarts from an RDB file saved before the last adds two instances made (as a restore from an older backup,
 * or a restart with {@code save} points and no AOF, would): the bitmap is there, older. Each instance finds that adds
 * it had been acknowledged are gone, and the filter is repaired: with a key source, rebuilt from it (every key the
 * source holds found again, on both instances); filled by puts alone, each instance writes its own adds again from its
 * replay log and says that others' may be missing.
 */
@Timeout(90)
class RedisLostAddsIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    @Test
    void afterARestartFromAnOlderFileBothInstancesFindEveryKeyOnceTheFilterIsRebuilt() {
        try (RedisServerProcess redis = RedisServerProcess.start();
                TestRedisBackend a = TestRedisBackend.on(redis, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(redis, TestRedisBackend.FAST)) {
            List<Long> database = new CopyOnWriteArrayList<>(range(0, 1000));
            RedisBloomFilter onA = a.backend.create("users", SIZING, 1, 1);
            RedisBloomFilter onB = b.backend.create("users", SIZING, 2, 1);
            loadThenPutAfterASave(redis, onA, onB, database);

            redis.restart(); // loads the dump saved before the last 600 adds

            awaitEveryKeyFound(List.of(onA, onB), database);
            // The fault happened: each instance finds the loss at its own next refresh (a count of the bits right
            // after the restart would race the instances, which reconnect and write them again).
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.details().losses().detected() > 0
                    && onB.details().losses().detected() > 0);
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.details().losses().replayedKeys() >= 300);
            assertThat(onA.details().losses().replayedKeys()).isEqualTo(300);
            await().atMost(Duration.ofSeconds(20)).until(() -> onA.status() == SharedFilterStatus.READY
                    && onB.status() == SharedFilterStatus.READY);
            assertThat(onA.details().losses().repairs()).isPositive();
            // Guarding again: absent keys are rejected.
            assertThat(LongStream.range(1_000_000, 1_000_200).filter(onA::mightContain).count()).isLessThan(20);
        }
    }

    /**
     * The same on the server's own filters ({@code redis.kind: native}): the loss is found from the acknowledged-add
     * records the kind's add script writes as the bitmap's does, and the filter rebuilt inside Redis.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bf", "cf"})
    void aNativeFilterRestartedFromAnOlderFileFindsItsLostAddsAndIsRebuilt(String kind) {
        RedisBloomModule.assumeAvailable();
        RedisFilterSpec spec = RedisFilterSpec.builder(kind.equals("cf") ? RedisKinds.NATIVE_CUCKOO
                : RedisKinds.NATIVE_BLOOM, SIZING).build();
        try (RedisServerProcess redis = RedisServerProcess.startWithRedisBloom();
                TestRedisBackend a = TestRedisBackend.on(redis, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(redis, TestRedisBackend.FAST)) {
            List<Long> database = new CopyOnWriteArrayList<>(range(0, 1000));
            RedisBloomFilter onA = a.backend.create("users", spec);
            RedisBloomFilter onB = b.backend.create("users", spec);
            loadThenPutAfterASave(redis, onA, onB, database);

            redis.restart(); // loads the dump saved before the last 600 adds

            // The fault happened: each instance finds Redis's record of its acknowledged adds older than its own. (A
            // look for a lost key right after the restart races the instances, which reconnect and write it again.)
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.details().losses().detected() > 0
                    && onB.details().losses().detected() > 0);
            awaitEveryKeyFound(List.of(onA, onB), database);
            await().atMost(Duration.ofSeconds(20)).until(() -> onA.status() == SharedFilterStatus.READY
                    && onB.status() == SharedFilterStatus.READY);
            assertThat(LongStream.range(1_000_000, 1_000_200).filter(onA::mightContain).count()).isLessThan(20);
        }
    }

    @Test
    void aFilterFilledByPutsAloneGetsEachInstancesAddsBackAndWarnsOfTheRest() {
        try (RedisServerProcess redis = RedisServerProcess.start();
                TestRedisBackend a = TestRedisBackend.on(redis, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(redis, TestRedisBackend.FAST)) {
            RedisBloomFilter onA = a.backend.create("tokens", SIZING, 1, 1);
            RedisBloomFilter onB = b.backend.create("tokens", SIZING, 2, 1);
            assertThat(onA.start(PUTS_ONLY)).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(onB.start(PUTS_ONLY)).isEqualTo(StartOutcome.ALREADY_LOADED);
            List<Long> put = new ArrayList<>(range(0, 100));
            onA.putAll(range(0, 100));
            redis.command("SAVE");
            putRows(onA, put, 100, 400);
            putRows(onB, put, 400, 700);

            redis.restart();

            // The fault happened: each instance finds Redis's record of its acknowledged adds older than its own. (A
            // count of the bits right after the restart races the instances, which reconnect and write them again.)
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.details().losses().detected() > 0
                    && onB.details().losses().detected() > 0);
            awaitEveryKeyFound(List.of(onA, onB), put);
            assertThat(onA.status()).isEqualTo(SharedFilterStatus.READY);
            SharedFilterDetails.Losses losses = onB.details().losses();
            assertThat(losses.detected()).isPositive();
            assertThat(losses.replayedKeys()).isEqualTo(300);
            assertThat(losses.warning()).contains("other instances put").contains("shadow");
            assertThat(onB.statusReason()).isEqualTo(losses.warning());
        }
    }

    /** A feed that gives no key back: the filter is filled by puts alone. */
    private static final KeyFeed PUTS_ONLY = new KeyFeed() {

        @Override
        public long feed(Consumer<List<Object>> batches) {
            return 0;
        }

        @Override
        public boolean complete() {
            return false;
        }
    };

    /**
     * A loads the filter from {@code database} and B joins it; Redis saves its RDB file; then 600 rows are created, 300
     * through each instance: what a restart from that file loses.
     */
    private static void loadThenPutAfterASave(RedisServerProcess redis, RedisBloomFilter onA, RedisBloomFilter onB,
            List<Long> database) {
        assertThat(onA.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
            .isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(onB.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
            .isEqualTo(StartOutcome.ALREADY_LOADED);
        redis.command("SAVE");
        putRows(onA, database, 1000, 1300);
        putRows(onB, database, 1300, 1600);
    }

    /** Rows created one at a time, each key put as its write commits. */
    private static void putRows(RedisBloomFilter filter, List<Long> database, long from, long to) {
        for (long id = from; id < to; id++) {
            database.add(id);
            filter.putAll(List.of(id));
        }
    }

    private static void awaitEveryKeyFound(List<RedisBloomFilter> instances, List<Long> keys) {
        await("every key found on every instance").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (RedisBloomFilter filter : instances) {
                List<Long> rejected = keys.stream().filter(key -> filter.trustedToReject() && !filter.mightContain(key))
                    .toList();
                assertThat(rejected).as("keys rejected").isEmpty();
                assertThat(filter.trustedToReject()).as("guarding again").isTrue();
            }
        });
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }
}
