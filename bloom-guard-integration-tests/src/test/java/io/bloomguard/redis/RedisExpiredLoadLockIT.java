package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A builder whose load lock expired while it paused (a long GC pause, a stalled key source) and another that took the
 * lock and began since: the first one's stale read is not swapped in over the second one's build (the lock's fencing
 * token), so rows that only the later read found (written by other processes) are not rejected.
 */
@Timeout(60)
class RedisExpiredLoadLockIT {

    private static final int SEED = 11;

    private static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @Test
    void aBuilderWhoseLockExpiredSwapsNothingOverTheBuildOfTheInstanceThatTookTheLock() throws Exception {
        List<Object> database = new ArrayList<>();
        for (long id = 0; id < 1_000; id++) {
            database.add(id);
        }
        CountDownLatch firstRead = new CountDownLatch(1);
        CountDownLatch firstMayGoOn = new CountDownLatch(1);
        CountDownLatch secondRead = new CountDownLatch(1);
        CountDownLatch secondMayGoOn = new CountDownLatch(1);
        try (TestRedisBackend one = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend two = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            FilterSizing sizing = FilterSizing.of(10_000, 0.01);
            boolean[] pausing = new boolean[2];
            RedisBloomFilter first = one.backend.create("fenced", sizing, SEED, 1);
            RedisBloomFilter second = two.backend.create("fenced", sizing, SEED, 1);
            assertThat(first.start(pausingRead(database, pausing, 0, firstRead, firstMayGoOn)))
                    .isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(second.start(pausingRead(database, pausing, 1, secondRead, secondMayGoOn)))
                    .isEqualTo(StartOutcome.ALREADY_LOADED);

            pausing[0] = true;
            CompletableFuture<Long> stale = OwnThread.supply(first::rebuild);
            assertThat(firstRead.await(20, TimeUnit.SECONDS)).as("the first build read its source").isTrue();
            for (long id = 1_000; id < 2_000; id++) {
                database.add(id); // written by another process: only a read of the key source finds them
            }
            server.command("DEL", "bloom-guard:{fenced}:lock"); // its lock expired while it paused
            pausing[1] = true;
            CompletableFuture<Long> later = OwnThread.supply(second::rebuild);
            assertThat(secondRead.await(20, TimeUnit.SECONDS)).as("the second build read its source").isTrue();

            firstMayGoOn.countDown();
            await().atMost(java.time.Duration.ofSeconds(20)).until(stale::isDone);
            secondMayGoOn.countDown();
            assertThat(later.get(20, TimeUnit.SECONDS)).isEqualTo(2_000L);

            for (RedisBloomFilter instance : List.of(first, second)) {
                await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                        instance.mightContainAll(database)).as("rows rejected on %s", instance).containsOnly(true));
            }
            assertThat(stale).as("the build that lost its lock").isCompletedExceptionally();
        }
    }

    /** Reads the rows, then, while {@code pausing[index]}, says so and waits to be let go on. */
    private static KeyFeed pausingRead(List<Object> database, boolean[] pausing, int index, CountDownLatch read,
            CountDownLatch mayGoOn) {
        return batches -> {
            List<Object> rows = List.copyOf(database);
            batches.accept(rows);
            if (pausing[index]) {
                read.countDown();
                try {
                    mayGoOn.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return rows.size();
        };
    }
}
