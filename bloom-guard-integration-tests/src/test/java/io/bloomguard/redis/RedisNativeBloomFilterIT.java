package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.WithRedisBloom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The server's own Bloom filter ({@code redis.kind: native}, {@code BF.*}) on a {@code redis-server} with the
 * RedisBloom module (skipped without one: set {@code REDISBLOOM_MODULE}): the one rule where the filter is gone
 * ({@code DEL} as an eviction does it, {@code FLUSHALL}, a restart without persistence), adds during a rebuild, and
 * reading and writing it with plain {@code BF.*} commands from another connection.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisNativeBloomFilterIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /** No key of the source: found absent by a filter that is in place. */
    private static final long ABSENT = 987_654_321L;

    private static RedisServerProcess server;

    private static TestRedisBackend redis;

    @BeforeAll
    static void connect(@WithRedisBloom RedisServerProcess withModule) {
        server = withModule;
        redis = TestRedisBackend.on(withModule, TestRedisBackend.FAST);
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
    @ParameterizedTest
    @ValueSource(strings = {"evicted", "flushed", "restarted"})
    void aFilterThatIsGoneIsNeverReadAsAbsentAndIsRebuiltFromItsKeySource(String how) {
        String name = "native-gone-" + how;
        List<Object> source = LongStream.range(0, 2000).boxed().map(Object.class::cast).toList();
        RedisBloomFilter users = redis.backend.create(name, nativeSpec());
        assertThat(users.start(RecordingKeyFeed.of(source))).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(users.mightContain(ABSENT)).isFalse();

        switch (how) {
            case "evicted" -> server.command("DEL", liveKey(name));
            case "flushed" -> server.command("FLUSHALL");
            default -> server.restart();
        }

        // Whatever this instance last read, the check finds the filter gone: it lets the call through.
        assertThat(users.mightContain(ABSENT)).as("a filter that is gone never answers absent").isTrue();
        assertThat(users.mightContainAll(List.of(ABSENT, 1L))).containsExactly(true, true);
        await("rebuilt from its key source").atMost(Duration.ofSeconds(20))
            .until(() -> users.status() == SharedFilterStatus.READY && !users.mightContain(ABSENT));
        for (Object key : source) {
            assertThat(users.mightContain(key)).as("key %s", key).isTrue();
        }
        users.close();
    }

    @Test
    void keysAddedWhileARebuildRunsAreInTheGenerationSwappedIn() throws Exception {
        List<Object> database = new CopyOnWriteArrayList<>(LongStream.range(0, 20_000).boxed().toList());
        RedisBloomFilter users = redis.backend.create("native-rebuild", nativeSpec());
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
        String before = server.command("HGET", meta("native-rebuild"), "generation");
        users.rebuild();
        rebuilding.set(false);
        writer.get();
        assertThat(server.command("HGET", meta("native-rebuild"), "generation")).isNotEqualTo(before);
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

    private static RedisFilterSpec nativeSpec() {
        return RedisFilterSpec.builder(RedisKinds.NATIVE_BLOOM, SIZING).build();
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
