package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.redis.port.RedisForeignFilterException;
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

import java.util.Objects;
import java.util.UUID;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A filter of the server's that another program created and fills under its own key name ({@code redis.key}), on a
 * {@code redis-server} with the RedisBloom module (skipped without one: set {@code REDISBLOOM_MODULE}): guarded, given
 * this instance's adds, never read as absent once gone, and refused when it contradicts what is declared.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisForeignFilterIT {

    private static final FilterSizing DECLARED = FilterSizing.of(10_000, 0.01);

    private static RedisServerProcess server;

    private static TestRedisBackend redis;

    private static TestRedisBackend another;

    @BeforeAll
    static void connect(@WithRedisBloom RedisServerProcess withModule) {
        server = withModule;
        redis = TestRedisBackend.on(withModule, TestRedisBackend.CONTRACT);
        another = TestRedisBackend.on(withModule, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        if (redis != null) {
            redis.close();
            another.close();
        }
    }

    /**
     * Another program reserves the filter and fills it with {@code BF.ADD} ({@code CF.ADD}): every key it added is
     * found, absent keys are rejected at about the error rate, and a key this instance puts is in the owner's filter.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bf", "cf"})
    void aFilterAnotherProgramFillsIsGuardedAndTakesThisInstancesKeys(String kind) {
        String key = "legacy:" + kind + ":" + UUID.randomUUID();
        reserve(kind, key);
        LongStream.range(0, 2_000).forEach(id -> server.command(kind.toUpperCase() + ".ADD", key, Long.toString(id)));
        SharedBloomFilter users = guard(redis, kind, key);

        assertThat(users.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
        assertThat(users.trustedToReject()).isTrue();
        assertThat(LongStream.range(0, 2_000).allMatch(users::mightContain)).as("every key the owner added").isTrue();
        long passed = LongStream.range(1_000_000, 1_010_000).filter(users::mightContain).count();
        // The declared rate, 1% of 10,000 (far fewer pass at a fifth of its size); the module hashes with a fixed seed.
        assertThat(passed).as("absent keys let through").isLessThanOrEqualTo(100);
        assertThat(users.mightContainAll(java.util.List.of(5L, 1_000_000_007L, "7"))).containsExactly(true,
                users.mightContain(1_000_000_007L), true);

        assertThat(users.put(777_777L)).isTrue();
        assertThat(server.command(kind.toUpperCase() + ".EXISTS", key, "777777")).as("in the owner's filter")
            .isEqualTo("1");
        users.close();
    }

    /** A filter reserved with less room or a higher error rate, or another type at the key, is refused by name. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "BF.RESERVE {key} 0.05 10000             | bf | error rate is about 0.0",
        "BF.RESERVE {key} 0.01 1000              | bf | reserved for 1000 keys",
        "CF.RESERVE {key} 16384 BUCKETSIZE 4     | cf | of the time, above its error-rate 0.01",
        "CF.RESERVE {key} 2000                   | cf | fewer than its expected-size 10000",
        "SET {key} x                             | bf | holds a string"})
    void aFilterThatContradictsTheDeclaredOneIsRefusedSayingWhy(String create, String kind, String said) {
        String key = "legacy:contradicting:" + UUID.randomUUID();
        server.command(create.trim().replace("{key}", key).split(" "));
        SharedBloomFilter users = guard(redis, kind.trim(), key);

        assertThat(users.follow()).isIn(StartOutcome.MISMATCHED, StartOutcome.ACCESS_DENIED);
        assertThat(users.trustedToReject()).isFalse();
        assertThat(users.mightContain(1_000_000_007L)).as("lets calls through").isTrue();
        RuntimeException refusal = Objects.requireNonNull(users.refusal());
        assertThat(refusal).isInstanceOf(RedisForeignFilterException.class);
        assertThat(refusal.getMessage()).contains(key).contains(said.trim());
        users.close();
    }

    /**
     * Before its owner creates the key, and after it is deleted, the filter lets every call through; a key put
     * meanwhile is kept and written once the key is back.
     */
    @Test
    void aKeyThatIsGoneIsNeverReadAsAbsentAndAnAddMadeMeanwhileIsWrittenOnceItIsBack() {
        String key = "legacy:late:" + UUID.randomUUID();
        SharedBloomFilter users = guard(redis, "bf", key);
        assertThat(users.follow()).isEqualTo(StartOutcome.WAITING_FOR_A_LOADER);
        assertThat(users.status()).isEqualTo(SharedFilterStatus.MISSING);
        assertThat(users.mightContain(1_000_000_007L)).isTrue();
        users.put(42L);
        assertThat(users.pendingAdds()).isEqualTo(1);

        reserve("bf", key);
        await().atMost(java.time.Duration.ofSeconds(10)).until(users::trustedToReject);
        assertThat(server.command("BF.EXISTS", key, "42")).as("written once the key was back").isEqualTo("1");
        assertThat(users.mightContain(1_000_000_007L)).isFalse();

        server.command("DEL", key);
        assertThat(users.mightContain(1_000_000_007L)).as("gone: unknown, never absent").isTrue();
        assertThat(users.trustedToReject()).isFalse();
        users.close();
    }

    /**
     * An instance that closes with adds it could not write yet writes them once more, or else leaves the mark that
     * stops every other instance from rejecting (nothing reads the key between, with refreshes a minute apart).
     */
    @Test
    void anInstanceThatClosesWritesItsKeptAddsOrMarksTheFilterIncomplete() {
        RedisBackendSettings slow = RedisBackendSettingsBuilder.from(TestRedisBackend.CONTRACT)
            .refreshInterval(java.time.Duration.ofMinutes(1))
            .build();
        String written = "legacy:closing:" + UUID.randomUUID();
        String never = "legacy:closing-never:" + UUID.randomUUID();
        try (TestRedisBackend closing = TestRedisBackend.on(server, slow)) {
            SharedBloomFilter first = guard(closing, "bf", written);
            SharedBloomFilter second = guard(closing, "bf", never);
            first.follow();
            second.follow();
            first.put(42L);
            second.put(43L);
            reserve("bf", written);
            first.close();
            second.close();
        }
        assertThat(server.command("BF.EXISTS", written, "42")).as("written at close").isEqualTo("1");
        assertThat(server.command("HGET", "bloom-guard:{" + name(never) + "}:meta", "stale"))
            .contains("1 adds not written when an instance closed");
    }

    /**
     * A cuckoo filter takes back a key whose row is proven gone, only its last copy: a key the owner added twice
     * stays.
     */
    @Test
    void aCuckooFilterTakesBackOnlyAKeysLastCopy() {
        String key = "legacy:removes:" + UUID.randomUUID();
        reserve("cf", key);
        server.command("CF.ADD", key, "6");
        server.command("CF.ADD", key, "6");
        SharedBloomFilter users = guard(redis, "cf", key);
        users.follow();
        users.put(5L);

        assertThat(users.remove(5L)).isTrue();
        assertThat(server.command("CF.EXISTS", key, "5")).isEqualTo("0");
        assertThat(users.remove(6L)).isTrue();
        assertThat(server.command("CF.EXISTS", key, "6")).as("two copies: kept").isEqualTo("1");
        users.close();
    }

    /**
     * A key one instance lost cannot be rebuilt in: it marks the filter incomplete for every instance, which stops
     * rejecting until an operator deletes the mark.
     */
    @Test
    void aKeyLostOnOneInstanceStopsEveryInstanceFromRejectingUntilTheMarkIsDeleted() {
        String key = "legacy:marked:" + UUID.randomUUID();
        reserve("bf", key);
        SharedBloomFilter first = guard(redis, "bf", key);
        SharedBloomFilter second = guard(another, "bf", key);
        first.follow();
        second.follow();
        assertThat(second.trustedToReject()).isTrue();

        first.markIncomplete("a key expression failed");
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !second.trustedToReject());
        assertThat(second.statusReason()).contains("a key expression failed").contains("HDEL");

        server.command("HDEL", "bloom-guard:{" + name(key) + "}:meta", "stale");
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> first.trustedToReject()
                && second.trustedToReject());
        first.close();
        second.close();
    }

    /**
     * A user with the grants docs/redis.md lists for a filter another program owns checks and adds; one without the
     * info command is refused by name, with what to grant, rather than taken for an outage.
     */
    @Test
    void aUserWithTheDocumentedGrantsGuardsItAndOneWithoutIsRefusedSayingWhatToGrant() {
        String key = "legacy:acl:" + UUID.randomUUID();
        reserve("bf", key);
        server.command("BF.ADD", key, "1");
        String grants = "~legacy:* ~bloom-guard:* +eval +evalsha +type +exists +bf.info +bf.exists +bf.mexists"
                + " +bf.insert +hgetall +hset";
        acl(grants);
        try (TestRedisBackend user = TestRedisBackend.as(server, "foreign", "s3cret", TestRedisBackend.CONTRACT)) {
            SharedBloomFilter users = guard(user, "bf", key);
            assertThat(users.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
            assertThat(users.mightContain(1L)).isTrue();
            assertThat(users.mightContain(1_000_000_007L)).isFalse();
            assertThat(users.put(2L)).isTrue();
            users.markIncomplete("a key lost");
            assertThat(server.command("HGET", "bloom-guard:{" + name(key) + "}:meta", "stale"))
                .as("marked under these grants").contains("a key lost");
            users.close();
        }
        acl(grants.replace(" +bf.info", ""));
        try (TestRedisBackend user = TestRedisBackend.as(server, "foreign", "s3cret", TestRedisBackend.CONTRACT)) {
            SharedBloomFilter users = guard(user, "bf", key);
            assertThat(users.follow()).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(Objects.requireNonNull(users.refusal()).getMessage()).contains("NOPERM");
            assertThat(((RedisForeignFilterException) users.refusal()).action()).contains("+bf.info");
            users.close();
        }
    }

    private static void acl(String rules) {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("ACL", "SETUSER", "foreign",
                "reset", "on", ">s3cret"));
        command.addAll(java.util.Arrays.asList(rules.split(" ")));
        server.command(command.toArray(String[]::new));
    }

    private static void reserve(String kind, String key) {
        if (kind.equals("bf")) {
            server.command("BF.RESERVE", key, "0.01", "10000");
        }
        else {
            server.command("CF.RESERVE", key, "20000");
        }
    }

    private static SharedBloomFilter guard(TestRedisBackend backend, String kind, String key) {
        RedisKind server = kind.equals("bf") ? RedisKinds.NATIVE_BLOOM : RedisKinds.NATIVE_CUCKOO;
        return backend.backend.createForeign(name(key), key, server, DECLARED, AddFailurePolicy.BUFFER);
    }

    /** One filter name per key, so that tests sharing the server share no metadata. */
    private static String name(String key) {
        return "foreign-" + Integer.toHexString(key.hashCode());
    }
}
