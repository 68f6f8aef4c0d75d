package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The moments between sending a write and its reply, or between two steps of a build, made long by holding or
 * failing a command just before it is sent: at no such moment does the filter trust bits that are not there yet.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisHeldWriteIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /**
     * No maintenance ticks and no recovery probes (the tests run maintenance), and a breaker that lets the next
     * command through at once.
     */
    private static final RedisBackendSettings MANUAL = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
            .breakerOpenWait(Duration.ofMillis(1))
            .refreshInterval(Duration.ofHours(1))
            .probeInterval(Duration.ofHours(1))
            .build();

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /**
     * An add that failed is replayed later; while its script is on its way, the key is not in the bitmap yet, so
     * the instance must not trust the filter: it counts the key as pending until the script has run.
     */
    @Test
    void aBufferedAddIsPendingUntilItsReplayHasWrittenIt() throws Exception {
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, MANUAL)) {
            RedisBloomFilter filter = app.backend.create("replay-in-flight", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            app.port.beforeNext("eval:add", command -> {
                throw new IllegalStateException("connection reset");
            });
            assertThat(filter.put(5000L)).isTrue();
            assertThat(filter.pendingAdds()).as("buffered").isEqualTo(1);

            CountDownLatch sending = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            app.port.beforeNext("eval:add", InterceptingRedisPort.holdAt(sending, gate));
            // The failed add opened the breaker for MANUAL's 1 ms: a tick within it sends nothing, so tick until the
            // replay is on its way.
            CompletableFuture<Void> maintenance = OwnThread.run(() -> await("the replay on its way")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1))
                .pollInSameThread()
                .until(() -> {
                    filter.maintain();
                    return sending.getCount() == 0;
                }));
            try {
                assertThat(sending.await(10, TimeUnit.SECONDS)).as("the replay reached its script").isTrue();
                assertThat(filter.trustedToReject() && !filter.mightContain(5000L))
                        .as("the key is rejected while its replay is on its way (status %s, pending %d)",
                                filter.status(), filter.pendingAdds())
                        .isFalse();
                assertThat(filter.status()).isEqualTo(SharedFilterStatus.STALE);
            }
            finally {
                gate.countDown();
            }
            maintenance.get(10, TimeUnit.SECONDS);
            assertThat(filter.pendingAdds()).isZero();
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(filter.mightContain(5000L)).isTrue();
        }
    }

    /**
     * A lost key is owed to Redis as a stale mark; once the mark is sent, the instance must go on distrusting the
     * filter until it has read the mark back, not trust its older view of the unmarked filter meanwhile.
     */
    @Test
    void aLostKeyKeepsTheFilterStaleUntilTheMarkIsReadBack() throws Exception {
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, MANUAL)) {
            RedisBloomFilter filter = app.backend.create("mark-in-flight", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);

            CountDownLatch reading = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            app.port.beforeNext("hgetall", InterceptingRedisPort.holdAt(reading, gate));
            CompletableFuture<Void> marking = OwnThread.run(
                    () -> filter.markIncomplete("a key expression failed"));
            try {
                assertThat(reading.await(10, TimeUnit.SECONDS)).as("the mark was sent and is being read back")
                        .isTrue();
                assertThat(server.command("HGET", "bloom-guard:{mark-in-flight}:meta", "stale")).isNotNull();
                assertThat(filter.trustedToReject()).as("trusted while the lost key's mark is read back").isFalse();
            }
            finally {
                gate.countDown();
            }
            marking.get(10, TimeUnit.SECONDS);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.STALE);
        }
    }

    /**
     * The bits a rebuild uploaded are gone when it swaps (evicted: the upload is the one large key with an
     * expiry; or lost in a failover): the swap is refused, and the live generation, which holds every key, stays.
     */
    @Test
    void aRebuildWhoseUploadIsGoneKeepsTheLiveGeneration() {
        List<Object> keys = longs(0, 1000);
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, MANUAL)) {
            RedisBloomFilter filter = app.backend.create("upload-gone", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(keys))).isEqualTo(StartOutcome.LOADED_HERE);
            app.port.beforeNext("eval:finish", command -> command.server().delete(command.keys().get(2)).join());

            Throwable failure = catchThrowable(filter::rebuild);

            filter.refresh();
            assertThat(rejected(filter, keys)).as("preloaded keys rejected after the refused swap").isZero();
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
            assertThat(failure).as("the rebuild's outcome").hasMessageContaining("gone or incomplete");
            assertThat(server.command("HGET", "bloom-guard:{upload-gone}:meta", "generation")).isEqualTo("1");

            assertThat(filter.rebuild()).as("a rebuild whose upload stays").isEqualTo(1000);
            assertThat(filter.mightContainAll(keys)).containsOnly(true);
        }
    }

    /**
     * The first load's upload is gone when it swaps: the filter is not made ready on the adds alone; it stays
     * loading (calls pass through) and the load is retried after the usual pause, which then holds every key.
     */
    @Test
    void aLoadWhoseUploadIsGoneIsNotReadyAndIsRetried() {
        List<Object> keys = longs(0, 1000);
        RedisBackendSettings retrying = RedisBackendSettingsBuilder.from(MANUAL)
                .lockTtl(Duration.ofMillis(500))
                .refreshInterval(Duration.ofMillis(50))
                .build();
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, retrying)) {
            RedisBloomFilter filter = app.backend.create("first-upload-gone", SIZING, 1, 1);
            app.port.beforeNext("eval:finish", command -> command.server().delete(command.keys().get(2)).join());

            Throwable failure = catchThrowable(() -> filter.start(RecordingKeyFeed.of(keys)));

            filter.refresh();
            assertThat(rejected(filter, keys)).as("preloaded keys rejected after the refused swap").isZero();
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.LOADING);
            assertThat(failure).as("the load's outcome").hasMessageContaining("gone or incomplete");
            await("loaded by the retry").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> filter.status() == SharedFilterStatus.READY);
            assertThat(filter.mightContainAll(keys)).containsOnly(true);
        }
    }

    /**
     * A loader that stops part way through its upload (here: its second chunk cannot be sent) leaves the chunks
     * it sent in Redis, up to 512 MiB a shard; they expire, as docs/redis.md says, rather than stay for good.
     */
    @Test
    void anUploadAbortedPartWayExpires() {
        FilterSizing twoChunks = FilterSizing.of(4_000_000, 0.01); // more than 2^25 bits: two 4 MiB chunks
        assertThat(twoChunks.bitSize()).isGreaterThan(1L << 25);
        AtomicInteger chunks = new AtomicInteger();
        AtomicReference<String> upload = new AtomicReference<>();
        try (TestRedisBackend app = TestRedisBackend.intercepting(server, MANUAL)) {
            RedisBloomFilter filter = app.backend.create("upload-aborted", twoChunks, 1, 1);
            app.port.beforeEvery("setrange", command -> {
                upload.set(command.keys().get(0));
                if (chunks.incrementAndGet() == 2) {
                    throw new IllegalStateException("the loader stops here");
                }
            });

            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 200_000)))).isNotEqualTo(StartOutcome.LOADED_HERE);

            assertThat(chunks.get()).as("chunks sent").isEqualTo(2);
            await("the first chunk is in Redis").atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10)).ignoreExceptions()
                .until(() -> "1".equals(server.command("EXISTS", upload.get())));
            await("the partial upload has an expiry").atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(10)).ignoreExceptions()
                .until(() -> Long.parseLong(server.command("PTTL", upload.get())) > 0);
        }
    }

    private static long rejected(RedisBloomFilter filter, List<Object> keys) {
        boolean[] answers = filter.mightContainAll(keys);
        long rejected = 0;
        for (boolean answer : answers) {
            rejected += answer ? 0 : 1;
        }
        return rejected;
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }
}
