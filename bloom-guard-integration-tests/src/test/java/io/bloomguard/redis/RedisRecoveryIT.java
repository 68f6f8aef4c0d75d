package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * How soon an instance is back to normal once Redis answers again after a freeze ({@code DEBUG SLEEP}) or a
 * restart, with the production defaults of the breaker: buffered adds reach Redis within 250 ms, absent keys are
 * rejected again within 2 s; and what one failed call, or an add under {@code on-add-failure: fail}, does.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisRecoveryIT {

    private static final Log logger = LogFactory.getLog(RedisRecoveryIT.class);

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final long ABSENT = 987_654_321L;

    /**
     * The production defaults (breaker: 50 % of at least 10 calls in 2 s, a trial every 250 ms; a probe every
     * 50 ms; a reconnect attempt every 100 ms; a refresh every second), but for timeouts that a loaded test machine
     * meets on loopback (200 ms for a check, 500 ms for other commands) and no rebuild grace.
     */
    private static final RedisBackendSettings DEFAULTS = RedisBackendSettingsBuilder
            .from(RedisBackendSettings.defaults())
            .checkTimeout(Duration.ofMillis(200))
            .commandTimeout(Duration.ofMillis(500))
            .lockTtl(Duration.ofSeconds(3))
            .rebuildGrace(Duration.ZERO)
            .build();

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /**
     * Adds made while Redis sleeps are buffered; they are replayed within 250 ms of Redis answering again (the reply
     * to {@code DEBUG SLEEP}), not at the next refresh (1 s) or breaker trial, and the other instance has them.
     */
    @Test
    void addsBufferedWhileRedisSleepsReachTheOtherInstanceWithin250MsOfItsWaking() {
        try (TestRedisBackend writing = TestRedisBackend.on(server, DEFAULTS);
                TestRedisBackend reading = TestRedisBackend.on(server, DEFAULTS)) {
            RedisBloomFilter writer = writing.backend.create("replayed", SIZING, 1, 1);
            RedisBloomFilter reader = reading.backend.create("replayed", SIZING, 2, 1);
            assertThat(writer.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(reader.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);

            CompletableFuture<Long> woke = sleepRedis(3);
            AtomicLong next = new AtomicLong(5_000);
            List<Object> buffered = new ArrayList<>();
            await("adds buffered while Redis sleeps").atMost(Duration.ofSeconds(2)).until(() -> {
                long key = next.getAndIncrement();
                writer.put(key);
                if (writer.pendingAdds() > 0) {
                    buffered.add(key);
                }
                return buffered.size() >= 3;
            });
            assertThat(woke).as("still asleep: the adds were buffered during the sleep").isNotDone();
            assertThat(writer.status()).isEqualTo(SharedFilterStatus.STALE);

            long wokeAt = woke.join();
            await("the buffered adds replayed").atMost(Duration.ofMillis(250)).pollInterval(Duration.ofMillis(5))
                    .until(() -> writer.pendingAdds() == 0);
            logger.info("Buffered adds replayed " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wokeAt)
                    + " ms after Redis woke");
            // The other instance's own breaker may still be open a moment (its refresh failed during the sleep).
            await("the other instance finds every buffered key").atMost(Duration.ofSeconds(2))
                    .ignoreException(RedisUnavailableException.class)
                    .until(() -> allTrue(reader.mightContainAll(buffered)));
            await().atMost(Duration.ofSeconds(2)).until(() -> writer.status() == SharedFilterStatus.READY);
        }
    }

    /**
     * Redis sleeps for 2 s; checks fail meanwhile (the guard lets calls through), enough of them for the checks'
     * breaker to open. Within 2 s of Redis waking, an absent key is rejected again: the breaker tries again every
     * 250 ms.
     */
    @Test
    void anAbsentKeyIsRejectedAgainWithinTwoSecondsOfRedisWaking() {
        try (TestRedisBackend app = TestRedisBackend.on(server, DEFAULTS)) {
            RedisBloomFilter filter = app.backend.create("woken", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(rejects(filter, ABSENT)).isTrue();

            CompletableFuture<Long> woke = sleepRedis(2);
            await("the checks' breaker open, as concurrent checks fail").atMost(Duration.ofMillis(1500)).until(() -> {
                for (int i = 0; i < 5; i++) {
                    filter.mightContainAsync(ABSENT + i); // time out after 200 ms each
                }
                return app.backend.unavailable();
            });
            assertThat(woke).as("still asleep").isNotDone();
            assertThat(rejects(filter, ABSENT)).as("rejects while Redis sleeps").isFalse();

            long wokeAt = woke.join();
            await("an absent key rejected again").atMost(Duration.ofSeconds(2)).until(() -> rejects(filter, ABSENT));
            logger.info("Absent key rejected again " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wokeAt)
                    + " ms after Redis woke");
            assertThat(rejects(filter, 500L)).as("a key the filter holds").isFalse();
        }
    }

    /**
     * The application's Lettuce client keeps its default reconnect back-off, which grows to seconds while Redis is
     * down; the backend opens a connection of its own as soon as Redis is back. Redis comes back empty (no
     * persistence), so the filter is rebuilt from its key source at the next refresh (1 s): within 2 s of the
     * restart an absent key is rejected again (3 s allowed for a loaded machine).
     */
    @Test
    void anAbsentKeyIsRejectedAgainWithinTwoSecondsOfARestartDespiteTheClientsBackOff() {
        RedisServerProcess restarting = RedisServerProcess.start();
        RedisClient client = RedisClient.create(RedisURI.create(restarting.host(), restarting.port()));
        try (RedisFilterBackend backend = new RedisFilterBackend(() -> LettuceRedisPort.connect(client), DEFAULTS)) {
            RedisBloomFilter filter = backend.create("restarted", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(rejects(filter, ABSENT)).isTrue();

            restarting.kill();
            // Down long enough for the client's back-off to grow past a second; nothing is rejected meanwhile.
            await("Redis down for 3 s").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(100)).until(() -> !rejects(filter, 500L));
            restarting.restart();
            long restartedAt = System.nanoTime();

            await("an absent key rejected again").atMost(Duration.ofSeconds(3)).until(() -> rejects(filter, ABSENT));
            logger.info("Absent key rejected again " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt)
                    + " ms after the restart");
            assertThat(rejects(filter, 500L)).as("a key the filter holds").isFalse();
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            restarting.close();
        }
    }

    /** One check that fails among many that answer (a GC pause) does not stop the checks of every filter. */
    @Test
    void oneFailedCheckAmongManyThatAnswerDoesNotOpenTheBreaker() {
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, DEFAULTS)) {
            RedisBloomFilter filter = app.backend.create("one-slow", SIZING, 1, 1);
            RedisBloomFilter other = app.backend.create("one-slow-other", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(other.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            for (long key = 0; key < 100; key++) {
                assertThat(filter.mightContain(key)).isTrue();
            }

            app.port.beforeNext("getrange", command -> {
                throw new IllegalStateException("no reply within the check timeout");
            });
            assertThatThrownBy(() -> filter.mightContain(1L)).isInstanceOf(RedisUnavailableException.class);

            assertThat(app.backend.unavailable()).as("a breaker open").isFalse();
            assertThat(other.mightContain(ABSENT)).as("the next check, of another filter, answered by Redis")
                    .isFalse();
        }
    }

    /**
     * Under {@code on-add-failure: fail} an add Redis does not take throws, so that the write it belongs to fails,
     * and nothing is buffered: the filter stays trusted, and the next add goes to Redis as usual.
     */
    @Test
    void underFailAnAddRedisDoesNotTakeThrowsAndIsNotBuffered() {
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, DEFAULTS)) {
            RedisBloomFilter filter = app.backend.create("failing-adds", SIZING, 1, 1, AddFailurePolicy.FAIL);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);

            app.port.beforeNext("eval:add", command -> {
                throw new IllegalStateException("connection reset");
            });
            assertThatThrownBy(() -> filter.put(5_000L)).isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("Filter 'failing-adds'").hasMessageContaining("on-add-failure is fail");

            assertThat(filter.pendingAdds()).isZero();
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filter.put(5_001L)).isTrue();
            assertThat(filter.mightContain(5_001L)).isTrue();
        }
    }

    /** Freezes Redis for {@code seconds}; completes, with {@code nanoTime}, when it answers again. */
    private static CompletableFuture<Long> sleepRedis(int seconds) {
        return OwnThread.supply(() -> {
            server.command("DEBUG", "SLEEP", Integer.toString(seconds));
            return System.nanoTime();
        });
    }

    /** Whether the guard would reject {@code key}: the filter is trusted and Redis answers "absent". */
    private static boolean rejects(RedisBloomFilter filter, long key) {
        try {
            return filter.trustedToReject() && !filter.mightContain(key);
        }
        catch (RedisUnavailableException ex) {
            return false; // the guard lets the call through (on-backend-failure: allow)
        }
    }

    private static boolean allTrue(boolean[] answers) {
        for (boolean answer : answers) {
            if (!answer) {
                return false;
            }
        }
        return true;
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }
}
