package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.FreezableTcpProxy;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.TwoInstances;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An instance that stops (a rolling deploy, a scale-in) while it holds adds it could not write yet, or a stale
 * mark it could not send: it hands them to Redis before it lets go of its connection, so that the instances that
 * stay do not reject the records it created; and when it cannot, it says so.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(RedisServerExtension.class)
class RedisShutdownIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /**
     * A failed command holds adds back for an hour (as one does for {@code breaker-open-wait} in production), and
     * no maintenance ticks or recovery probes replay them meanwhile: only closing the instance can deliver them.
     */
    private static final RedisBackendSettings HELD_BACK = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
            .commandTimeout(Duration.ofMillis(500))
            .breakerOpenWait(Duration.ofHours(1))
            .refreshInterval(Duration.ofHours(1))
            .probeInterval(Duration.ofHours(1))
            .build();

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /**
     * A brief freeze of Redis times one add out and opens the breaker; the next add, made once Redis answers again,
     * is buffered without being tried. The instance then stops: the instance that stays finds both keys.
     */
    @Test
    void addsHeldBackByTheBreakerAreWrittenWhenTheInstanceCloses(TwoInstances two) {
        TwoInstances.Pair<TestRedisBackend> pair = two.start(port -> TestRedisBackend.on(port, HELD_BACK));
        TestRedisBackend leaving = pair.behindProxy();
        TestRedisBackend staying = pair.direct();
        FreezableTcpProxy proxy = two.proxy();
        RedisBloomFilter leavingFilter = leaving.backend.create("held-back", SIZING, 1, 1);
        RedisBloomFilter stayingFilter = staying.backend.create("held-back", SIZING, 2, 1);
        assertThat(leavingFilter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(stayingFilter.start(RecordingKeyFeed.of(longs(0, 1_000))))
                .isEqualTo(StartOutcome.ALREADY_LOADED);

        proxy.freeze();
        assertThat(leavingFilter.put(5_000L)).isTrue(); // times out: buffered, and the breaker opens
        proxy.thaw();
        assertThat(leavingFilter.put(5_001L)).isTrue(); // breaker open: buffered without being tried
        assertThat(leavingFilter.pendingAdds()).isEqualTo(2);
        assertThat(stayingFilter.mightContain(5_001L)).as("the other instance, before the first closes")
                .isFalse();

        leaving.close();

        assertThat(stayingFilter.mightContain(5_000L)).as("key 5000, after the first instance closed").isTrue();
        assertThat(stayingFilter.mightContain(5_001L)).as("key 5001, after the first instance closed").isTrue();
        assertThat(stayingFilter.status()).isEqualTo(SharedFilterStatus.READY);
    }

    /**
     * The buffered add cannot be written when the instance closes (its script fails), but Redis answers: the filter
     * is marked stale for every instance instead, which stop rejecting and rebuild it from the key source, which
     * holds the record.
     */
    @Test
    void addsThatCannotBeWrittenAtCloseMarkTheFilterStaleForEveryInstance(CapturedOutput output) {
        List<Object> database = new CopyOnWriteArrayList<>(longs(0, 1_000));
        RedisBackendSettings rebuilding = RedisBackendSettingsBuilder.from(HELD_BACK)
                .refreshInterval(Duration.ofMillis(100))
                .build();
        try (TestRedisBackend staying = TestRedisBackend.on(server, rebuilding)) {
            TestRedisBackend leaving = TestRedisBackend.intercepting(server, HELD_BACK);
            try {
                RedisBloomFilter leavingFilter = leaving.backend.create("unwritable", SIZING, 1, 1);
                RedisBloomFilter stayingFilter = staying.backend.create("unwritable", SIZING, 2, 1);
                assertThat(leavingFilter.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
                        .isEqualTo(StartOutcome.LOADED_HERE);
                assertThat(stayingFilter.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
                        .isEqualTo(StartOutcome.ALREADY_LOADED);
                leaving.port.beforeEvery("eval:add", command -> {
                    throw new IllegalStateException("the add script cannot run");
                });

                database.add(5_000L); // the row is written, then its key is added to the filter
                assertThat(leavingFilter.put(5_000L)).isTrue();
                assertThat(leavingFilter.pendingAdds()).isEqualTo(1);

                leaving.close();

                assertThat(server.command("HGET", "bloom-guard:{unwritable}:meta", "stale"))
                        .as("stale mark in Redis").isNotNull();
                assertThat(output).contains("Filter 'unwritable'", "1 add");
                await("rebuilt from the key source, with the row's key, and trusted again")
                    .atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(10)).ignoreExceptions()
                    .until(() -> stayingFilter.status() == SharedFilterStatus.READY
                            && stayingFilter.mightContain(5_000L));
            }
            finally {
                leaving.close();
            }
        }
    }

    /**
     * Redis stays unreachable while the instance closes: the close gives up after a few command timeouts (it does
     * not hold the shutdown), and the log names the filter and how many adds were lost.
     */
    @Test
    void addsThatCannotReachRedisAtCloseAreReportedAndTheCloseIsBounded(CapturedOutput output, TwoInstances two) {
        TestRedisBackend leaving = two.behindProxy(port -> TestRedisBackend.on(port, HELD_BACK));
        FreezableTcpProxy proxy = two.proxy();
        RedisBloomFilter filter = leaving.backend.create("cut-off", SIZING, 1, 1);
        assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);

        proxy.freeze();
        assertThat(filter.put(5_000L)).isTrue();
        assertThat(filter.put(5_001L)).isTrue();
        assertThat(filter.pendingAdds()).isEqualTo(2);

        long start = System.nanoTime();
        leaving.backend.close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).as("close with Redis unreachable (command timeout %d ms)",
                HELD_BACK.commandTimeout().toMillis())
                .isLessThan(HELD_BACK.commandTimeout().multipliedBy(3).plusSeconds(1));
        assertThat(output).contains("Filter 'cut-off'", "2 adds");
        assertThatThrownBy(() -> filter.put(5_002L)).as("a put once the backend is closed")
                .isInstanceOf(RedisUnavailableException.class).hasMessageContaining("cut-off");
    }

    /** A put on a filter that was closed is written at once: nothing would replay a buffer. */
    @Test
    void aPutAfterCloseIsWrittenAtOnce() {
        try (TestRedisBackend staying = TestRedisBackend.on(server, HELD_BACK);
                TestRedisBackend leaving = TestRedisBackend.on(server, HELD_BACK)) {
            RedisBloomFilter leavingFilter = leaving.backend.create("late", SIZING, 1, 1);
            RedisBloomFilter stayingFilter = staying.backend.create("late", SIZING, 2, 1);
            assertThat(leavingFilter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(stayingFilter.start(RecordingKeyFeed.of(longs(0, 1_000)))).isEqualTo(StartOutcome.ALREADY_LOADED);

            leavingFilter.close();
            assertThat(leavingFilter.put(6_000L)).isTrue();

            assertThat(leavingFilter.pendingAdds()).as("buffered").isZero();
            assertThat(stayingFilter.mightContain(6_000L)).as("found by the other instance").isTrue();
        }
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }
}
