package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The server's own filters ({@code redis.kind: native}: {@code BF.*}, and {@code CF.*} for {@code type: cuckoo}) on a
 * {@code redis-server} with the RedisBloom module (skipped without one: set {@code REDISBLOOM_MODULE}): the one rule
 * where the filter is gone ({@code DEL} as an eviction does it, {@code FLUSHALL}, a restart without persistence), adds
 * during a rebuild, removes from a cuckoo filter, and reading and writing them with plain commands from another
 * connection.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisNativeFilterIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /** No key of the source: found absent by a filter that is in place. */
    private static final long ABSENT = 987_654_321L;

    private static RedisServerProcess server;

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(@WithRedisBloom RedisServerProcess withModule) {
        server = withModule;
        redis = TestRedisBackend.on(withModule, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void anotherClientReadsTheKeysWithBfExistsAndAKeyItAddsIsFound() {
        UUID account = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
        List<Object> source = new ArrayList<>(LongStream.range(0, 1000).boxed().toList());
        source.add("user:7");
        source.add(account);
        RedisBloomFilter users = redis.backend.create("native-interop", nativeSpec());
        assertThat(users.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(users.mightContain(ABSENT)).as("absent key rejected").isFalse();

        String key = liveKey("native-interop");
        assertThat(server.command("TYPE", key)).isEqualTo("MBbloom--");
        assertThat(server.command("BF.EXISTS", key, "42")).as("42L as text").isEqualTo("1");
        assertThat(server.command("BF.EXISTS", key, "user:7")).isEqualTo("1");
        assertThat(server.command("BF.EXISTS", key, account.toString().toUpperCase())).as("UUIDs in lower case")
            .isEqualTo("0");
        assertThat(server.command("BF.EXISTS", key, account.toString())).isEqualTo("1");

        // Another program adds a row's key with plain BF.ADD: bloom-guard finds it, under any of the key's types.
        assertThat(server.command("BF.ADD", key, "5000")).isEqualTo("1");
        assertThat(users.mightContain(5000L)).isTrue();
        assertThat(users.mightContain("5000")).isTrue();
        assertThat(users.mightContain(5000)).isTrue();
        users.close();
    }

    /** The filter is gone as an eviction, a {@code FLUSHALL} or a restart without persistence leaves it. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"bf, evicted", "bf, flushed", "bf, restarted", "cf, evicted", "cf, flushed", "cf, restarted"})
    void aFilterThatIsGoneIsNeverReadAsAbsentAndIsRebuiltFromItsKeySource(String kind, String how) throws Exception {
        String name = "native-gone-" + kind + "-" + how;
        List<Object> source = LongStream.range(0, 2000).boxed().map(Object.class::cast).toList();
        // The rebuild after the loss waits for the test, so that every check in between meets the filter gone.
        AtomicBoolean lost = new AtomicBoolean();
        CountDownLatch rebuildMayRead = new CountDownLatch(1);
        RedisBloomFilter users = redis.backend.create(name, spec(kind));
        assertThat(users.start(RecordingKeyFeed.reading(() -> {
            if (lost.get()) {
                awaitQuietly(rebuildMayRead);
            }
            return source;
        }))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(users.mightContain(ABSENT)).isFalse();

        lost.set(true);
        switch (how) {
            case "evicted" -> server.command("DEL", liveKey(name));
            case "flushed" -> server.command("FLUSHALL");
            default -> server.restart();
        }

        // Whatever this instance last read, a check that gets an answer finds the filter gone and lets the call
        // through (one sent while the connection comes back after a restart fails instead, which the guard lets
        // through too).
        await("an answer from Redis").atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(
                RedisUnavailableException.class).until(() -> users.mightContain(ABSENT));
        assertThat(users.mightContainAll(List.of(ABSENT, 1L))).containsExactly(true, true);
        assertThat(users.trustedToReject()).isFalse();
        rebuildMayRead.countDown();
        await("rebuilt from its key source").atMost(Duration.ofSeconds(20))
            .until(() -> users.status() == SharedFilterStatus.READY && !users.mightContain(ABSENT));
        for (Object key : source) {
            assertThat(users.mightContain(key)).as("key %s", key).isTrue();
        }
        users.close();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bf", "cf"})
    void keysAddedWhileARebuildRunsAreInTheGenerationSwappedIn(String kind) throws Exception {
        String name = "native-rebuild-" + kind;
        List<Object> database = new CopyOnWriteArrayList<>(LongStream.range(0, 20_000).boxed().toList());
        RedisBloomFilter users = redis.backend.create(name, spec(kind));
        assertThat(users.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
            .isEqualTo(StartOutcome.LOADED_HERE);
        List<Long> added = new CopyOnWriteArrayList<>();
        AtomicBoolean rebuilding = new AtomicBoolean(true);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            for (long key = 1_000_000; rebuilding.get() || key < 1_000_200; key++) {
                database.add(key); // the row is written, then its key put: a key source read before misses it
                users.put(key);
                added.add(key);
            }
        });
        String before = server.command("HGET", meta(name), "generation");
        users.rebuild();
        rebuilding.set(false);
        writer.get();
        assertThat(server.command("HGET", meta(name), "generation")).isNotEqualTo(before);
        assertThat(added).isNotEmpty();
        for (long key : added) {
            assertThat(users.mightContain(key)).as("key %d added during the rebuild", key).isTrue();
        }
        assertThat(users.mightContain(ABSENT)).isFalse();
        users.close();
    }

    @Test
    void aServerWithoutTheModuleRefusesTheFilterSayingWhatToChange(RedisServerProcess plain) {
        try (TestRedisBackend withoutModule = TestRedisBackend.on(plain, TestRedisBackend.FAST)) {
            RedisBloomFilter users = withoutModule.backend.create("native-nomodule", nativeSpec());
            assertThat(users.start(RecordingKeyFeed.of(List.of(1L)))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(users.mightContain(ABSENT)).as("never rejects").isTrue();
            assertThat(Objects.requireNonNull(users.refusal()).getMessage()).contains("no BF.* commands");
            users.close();
        }
    }

    /**
     * Redis stops answering while a key is put: the add is kept in memory ({@code on-add-failure: buffer}), sent once
     * Redis answers again, and then found by this instance and by another that joins the filter. Checks meanwhile fail
     * and open a circuit breaker (the guard's {@code on-backend-failure} applies), which closes once Redis answers.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bf", "cf"})
    void anAddRedisDidNotAnswerIsReplayedOnceItAnswers(String kind) {
        String name = "native-outage-" + kind;
        RedisBackendSettings ticking = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
            .commandTimeout(Duration.ofMillis(300))
            .build();
        try (TestRedisBackend instance = TestRedisBackend.on(server, ticking)) {
            RedisBloomFilter users = instance.backend.create(name, spec(kind));
            List<Object> source = LongStream.range(0, 1000).boxed().map(Object.class::cast).toList();
            assertThat(users.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.LOADED_HERE);
            server.pause();
            try {
                users.put(5000L);
                assertThat(users.pendingAdds()).as("kept while Redis does not answer").isEqualTo(1);
                assertThatThrownBy(() -> users.mightContain(ABSENT)).as("a check fails, as on a bitmap")
                    .isInstanceOf(RedisUnavailableException.class);
                assertThat(instance.backend.unavailable()).as("a circuit breaker opened").isTrue();
            }
            finally {
                server.resume();
            }
            await("replayed").atMost(Duration.ofSeconds(10)).until(() -> users.pendingAdds() == 0);
            await("the breaker lets checks through again").atMost(Duration.ofSeconds(10))
                .ignoreException(RedisUnavailableException.class).until(() -> !users.mightContain(ABSENT));
            assertThat(users.mightContain(5000L)).isTrue();
            RedisBloomFilter other = redis.backend.create(name, spec(kind));
            assertThat(other.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.ALREADY_LOADED);
            assertThat(other.mightContain(5000L)).as("found by another instance").isTrue();
            assertThat(other.mightContain(ABSENT)).isFalse();
            other.close();
            users.close();
        }
    }

    /**
     * A key put by two rows (an update puts it again too) stays through the delete of one; a key whose one row is
     * deleted goes; a key never put is refused, changing nothing; another client sees the same with {@code CF.*}.
     */
    @Test
    void aCuckooFilterTakesBackAKeyOnlyWhenItsLastPutIsRemoved() {
        RedisBloomFilter sessions = redis.backend.create("native-removes", spec("cf"));
        assertThat(sessions.start(RecordingKeyFeed.of(List.of(1L, 2L, 2L, 3L, 3L, 3L)))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(sessions.counting()).as("removes").isTrue();
        assertThat(sessions.remove(1L)).isTrue();
        assertThat(sessions.mightContain(1L)).as("its one row deleted").isFalse();
        assertThat(sessions.remove(2L)).isTrue();
        assertThat(sessions.mightContain(2L)).as("one of its two rows deleted").isTrue();
        assertThat(sessions.remove(3L)).isTrue();
        assertThat(sessions.remove(3L)).isTrue();
        assertThat(sessions.mightContain(3L)).as("put three times: held twice, kept until a rebuild").isTrue();
        assertThat(sessions.remove(ABSENT)).as("never put").isFalse();
        assertThat(sessions.put(4L)).isTrue();
        assertThat(sessions.put(4L)).as("put again").isFalse();
        assertThat(sessions.remove(4L)).isTrue();
        assertThat(sessions.mightContain(4L)).as("put twice, removed once").isTrue();
        String key = liveKey("native-removes");
        assertThat(server.command("TYPE", key)).isEqualTo("MBbloomCF");
        assertThat(server.command("CF.EXISTS", key, "2")).isEqualTo("1");
        assertThat(server.command("CF.EXISTS", key, "1")).isEqualTo("0");
        sessions.close();
    }

    private static RedisFilterSpec nativeSpec() {
        return spec("bf");
    }

    private static RedisFilterSpec spec(String kind) {
        return RedisFilterSpec.builder(kind.equals("cf") ? RedisKinds.NATIVE_CUCKOO : RedisKinds.NATIVE_BLOOM, SIZING)
            .build();
    }

    private static String meta(String name) {
        return new RedisFilterKeys(RedisBackendSettings.defaults().keyPrefix(), name).meta(0);
    }

    /** The key of the live filter: what the metadata names, as a user finds it with {@code redis-cli}. */
    private static String liveKey(String name) {
        String live = server.command("HGET", meta(name), "live");
        return meta(name).replace(":meta", ":bits:" + live);
    }
}
