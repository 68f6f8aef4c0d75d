package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A filter of several shards is swapped one shard at a time, shard 0 last: for a moment some shards hold the new
 * generation while every instance still reads shard 0's metadata, which names the old one. An instance that puts keys
 * in that moment must still place them where the other instances look, so that none rejects a key whose put returned;
 * and under {@code on-add-failure: fail} none is left in a buffer while its put returns.
 *
 * <p>Here one instance rebuilds the filter again and again, half the time at a larger size (a generation of another
 * name), and holds each swap at shard 0 until the writer's puts have gone on for a while; the writer reads the stored
 * state once in that moment, and otherwise only when one of its writes finds it out of date.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class RedisShardedSwapIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final int SHARDS = 4;

    private static final int ROUNDS = 6;

    /** Puts made while each swap waits at shard 0: with four shards, three in four of their keys are on swapped ones. */
    private static final int PUTS_PER_SWAP = 60;

    /** The writer reads the stored state only when one of its own writes finds it out of date. */
    private static final RedisBackendSettings WRITER = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
        .refreshInterval(Duration.ofHours(1))
        .build();

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    static Stream<Arguments> keysPutWhileShardsAreSwappedAreFoundOnEveryInstance() {
        return Stream.of(Arguments.of("plain", AddFailurePolicy.BUFFER), Arguments.of("plain", AddFailurePolicy.FAIL),
                Arguments.of("counting", AddFailurePolicy.FAIL));
    }

    @ParameterizedTest(name = "{0}, on-add-failure {1}")
    @MethodSource
    void keysPutWhileShardsAreSwappedAreFoundOnEveryInstance(String type, AddFailurePolicy onAddFailure)
            throws Exception {
        String name = "swap-" + type + "-" + onAddFailure.name().toLowerCase();
        boolean counting = type.equals("counting");
        Set<Long> committed = ConcurrentHashMap.newKeySet();
        for (long row = 0; row < 1_000; row++) {
            committed.add(row);
        }
        List<String> rejected = Collections.synchronizedList(new ArrayList<>());
        List<String> leftBuffered = Collections.synchronizedList(new ArrayList<>());
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger puts = new AtomicInteger();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (TestRedisBackend a = TestRedisBackend.on(server, WRITER);
                TestRedisBackend b = TestRedisBackend.intercepting(server, TestRedisBackend.FAST)) {
            RedisBloomFilter writer = create(a, name, counting, onAddFailure);
            RedisBloomFilter rebuilder = create(b, name, counting, onAddFailure);
            assertThat(rebuilder.start(RecordingKeyFeed.reading(() -> List.copyOf(committed))))
                .isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(writer.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
            String lastShardSwapped = "bloom-guard:{" + name + "}:meta";
            b.port.beforeEvery("eval:finish", command -> {
                if (command.keys().get(0).equals(lastShardSwapped)) {
                    // As its maintenance may at any moment: the writer reads the stored state half swapped.
                    writer.refresh();
                    int before = puts.get();
                    await("puts while shard 0 waits to be swapped").atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> puts.get() >= before + PUTS_PER_SWAP);
                }
            });

            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long firstRow = 1_000_000L * (t + 1);
                int batch = 1 + 4 * t; // 1 and 5 keys a put
                writers.add(threads.submit(() -> {
                    for (long row = firstRow; writing.get(); row += batch) {
                        List<Long> keys = new ArrayList<>(batch);
                        for (long key = row; key < row + batch; key++) {
                            keys.add(key);
                        }
                        // Committed first, as the key source will find it; a put that fails rolls it back.
                        committed.addAll(keys);
                        try {
                            writer.putAll(keys);
                        }
                        catch (RedisUnavailableException ex) {
                            committed.removeAll(keys);
                            failed.add(keys + ": " + ex.getMessage());
                            puts.incrementAndGet();
                            continue;
                        }
                        if (writer.pendingAdds() > 0) {
                            leftBuffered.add(keys + " (" + writer.pendingAdds() + " adds pending)");
                        }
                        for (long key : keys) {
                            if (!rebuilder.mightContain(key)) {
                                rejected.add(key + " by the rebuilding instance");
                            }
                            if (!writer.mightContain(key)) {
                                rejected.add(key + " by the writing instance");
                            }
                        }
                        puts.incrementAndGet();
                    }
                }));
            }
            try {
                for (int round = 1; round <= ROUNDS; round++) {
                    if (round % 2 == 0) {
                        rebuilder.rebuild(2 * rebuilder.capacity()); // another size: bitmaps of another name
                    }
                    else {
                        rebuilder.rebuild();
                    }
                }
            }
            finally {
                writing.set(false);
                for (Future<?> running : writers) {
                    running.get(30, TimeUnit.SECONDS);
                }
            }

            assertThat(server.command("HGET", lastShardSwapped, "generation")).isEqualTo(String.valueOf(ROUNDS + 1));
            assertThat(rejected).as("keys rejected right after their put returned").isEmpty();
            if (onAddFailure == AddFailurePolicy.FAIL) {
                assertThat(leftBuffered).as("puts that returned with their keys left in a buffer").isEmpty();
            }
            assertThat(failed).as("puts that failed: Redis answered throughout").isEmpty();
            writer.refresh();
            rebuilder.refresh();
            List<Long> all = List.copyOf(committed);
            assertThat(rebuilder.mightContainAll(all)).as("every committed row, after the last swap").containsOnly(true);
            assertThat(writer.mightContainAll(all)).as("every committed row, after the last swap").containsOnly(true);
            assertThat(writer.pendingAdds()).isZero();
        }
        finally {
            writing.set(false);
            threads.shutdownNow();
        }
    }

    /**
     * Keys a put cannot place because the generations change under each of its attempts (here another build is
     * announced before each) wait in a buffer under {@code on-add-failure: buffer}; under {@code fail} the put fails,
     * so that the write rolls back rather than leave a record the other instances reject until the replay.
     */
    @ParameterizedTest
    @EnumSource(AddFailurePolicy.class)
    void keysThatCannotBePlacedFailThePutUnderFail(AddFailurePolicy onAddFailure) {
        String name = "churn-" + onAddFailure.name().toLowerCase();
        try (TestRedisBackend a = TestRedisBackend.intercepting(server, WRITER)) {
            RedisBloomFilter writer = create(a, name, false, onAddFailure);
            assertThat(writer.start(RecordingKeyFeed.of(List.of(1L, 2L)))).isEqualTo(StartOutcome.LOADED_HERE);
            String meta = "bloom-guard:{" + name + "}:meta";
            String live = server.command("HGET", meta, "live");
            AtomicInteger announced = new AtomicInteger();
            a.port.beforeEvery("eval:add", command -> {
                if (command.keys().get(0).equals(meta)) {
                    String seed = ".s" + Integer.toHexString(announced.incrementAndGet()) + ".";
                    server.command("HSET", meta, "next", live.replaceFirst("\\.s[0-9a-f]+\\.", seed));
                }
            });
            List<Long> keys = LongStream.range(1_000, 1_020).boxed().toList();
            if (onAddFailure == AddFailurePolicy.FAIL) {
                assertThatThrownBy(() -> writer.putAll(keys)).isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("could not place");
                assertThat(writer.pendingAdds()).as("nothing left in a buffer").isZero();
            }
            else {
                writer.putAll(keys);
                assertThat(writer.pendingAdds()).as("kept for replay").isPositive();
            }
            assertThat(announced.get()).as("a build announced before each of the put's attempts on shard 0")
                .isEqualTo(3);
            a.port.clear();
        }
    }

    private static RedisBloomFilter create(TestRedisBackend instance, String name, boolean counting,
            AddFailurePolicy onAddFailure) {
        return counting ? instance.backend.createCounting(name, SIZING, 7, SHARDS, onAddFailure)
                : instance.backend.create(name, SIZING, 7, SHARDS, onAddFailure);
    }
}
