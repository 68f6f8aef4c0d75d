package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.FreezableTcpProxy;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.testsupport.redis.TwoInstances;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A redis filter with a near copy, against a real {@code redis-server}: present keys cost no command, absent ones
 * cost the one {@code GETRANGE} they cost without a copy, and the copy never turns into a wrong "absent": not when it
 * falls behind another instance's adds, not after a {@code FLUSHALL} or a rebuild, not while Redis does not answer.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisNearCopyIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /** {@link TestRedisBackend#FAST} without maintenance ticks, so a test sees exactly the commands it causes. */
    private static final RedisBackendSettings QUIET = new RedisBackendSettings(TestRedisBackend.FAST.keyPrefix(),
            TestRedisBackend.FAST.checkTimeout(), TestRedisBackend.FAST.commandTimeout(),
            TestRedisBackend.FAST.breaker(), TestRedisBackend.FAST.lockTtl(), Duration.ofHours(1),
            TestRedisBackend.FAST.pendingAddsLimit(), TestRedisBackend.FAST.rebuildGrace(),
            TestRedisBackend.FAST.probeInterval(), TestRedisBackend.FAST.reconnectDelay());

    /** Absent keys: none of the tests adds one. */
    private static final long ABSENT = 1_000_000;

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    @Test
    void presentKeysCostNoRedisCommandAndAbsentOnesOneEach() {
        try (TestRedisBackend instance = TestRedisBackend.on(server, QUIET)) {
            RedisBloomFilter filter = nearCopied(instance, "present");
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            awaitCopy(filter);
            long rejected = 0;
            try (RedisMonitor monitor = RedisMonitor.on(server)) {
                for (long key = 0; key < 1000; key++) {
                    assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
                }
                assertThat(filter.mightContainAll(longs(0, 1000))).containsOnly(true);
                assertThat(filter.mightContainAsync(7L).join()).isTrue();
                assertThat(monitor.commandsSinceLastCall()).as("commands for 2,001 checks of present keys").isEmpty();

                for (long key = ABSENT; key < ABSENT + 200; key++) {
                    rejected += filter.mightContain(key) ? 0 : 1;
                }
                // With no other writer the copy holds exactly Redis's bits: it answers the absent keys Redis would
                // let through (false positives) and sends every other one to Redis.
                assertThat(rejected).as("absent keys rejected").isGreaterThan(190);
                assertThat(monitor.commandsSinceLastCall()).as("one GETRANGE per absent key the copy lacks")
                        .isEqualTo(Map.of("getrange", rejected));

                boolean[] batch = filter.mightContainAll(mixed(0, ABSENT + 10_000, 100));
                for (int i = 0; i < 100; i++) {
                    assertThat(batch[2 * i]).as("present key %d in a batch", i).isTrue();
                    rejected += batch[2 * i + 1] ? 0 : 1;
                }
                assertOneScript(monitor.commandsSinceLastCall(), "only the keys the copy lacks go to Redis");
            }
            SharedFilterDetails.NearCopy copy = filter.details().nearCopy();
            assertThat(copy.answering()).isTrue();
            assertThat(copy.generation()).isEqualTo("v1.b395.k7.s*.n1#1");
            assertThat(copy.lastRead()).isNotNull();
            assertThat(copy.sentToStore()).as("checks sent to Redis").isEqualTo(rejected);
            assertThat(copy.answeredHere()).as("checks answered here").isEqualTo(2_001 + 400 - rejected);
        }
    }

    /**
     * Another instance adds keys this one's copy does not have: each is found in Redis the first time it is checked
     * here (the copy fell behind, which costs a round trip), and answered by the copy from then on.
     */
    @Test
    void keysAddedByAnotherInstanceAreFoundInRedisOnceThenAnsweredHere() {
        try (TestRedisBackend here = TestRedisBackend.on(server, QUIET);
                TestRedisBackend elsewhere = TestRedisBackend.on(server, QUIET)) {
            RedisBloomFilter filter = nearCopied(here, "behind");
            RedisBloomFilter other = elsewhere.backend.create("behind", SIZING, 2, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(other.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.ALREADY_LOADED);
            awaitCopy(filter);
            other.putAll(longs(5000, 6000));
            other.putAll(longs(7000, 8000));
            try (RedisMonitor monitor = RedisMonitor.on(server)) {
                for (long key = 5000; key < 6000; key++) {
                    assertThat(filter.mightContain(key)).as("key %d, added elsewhere", key).isTrue();
                }
                // At most one per block (395): a block merged for one key holds the other keys added to it.
                assertThat(monitor.commandsSinceLastCall().getOrDefault("getrange", 0L))
                        .as("keys the copy lacked, found in Redis").isBetween(1L, 395L);
                for (long key = 5000; key < 6000; key++) {
                    assertThat(filter.mightContain(key)).as("key %d, checked again", key).isTrue();
                }
                assertThat(monitor.commandsSinceLastCall()).as("the blocks read the first time were merged").isEmpty();

                assertThat(filter.mightContainAll(longs(7000, 8000))).containsOnly(true);
                assertOneScript(monitor.commandsSinceLastCall(), "the keys added elsewhere, in one script");
                assertThat(filter.mightContainAll(longs(7000, 8000))).containsOnly(true);
                assertThat(monitor.commandsSinceLastCall()).as("keys a batch found in Redis were learnt").isEmpty();
            }
        }
    }

    /**
     * {@code FLUSHALL} under a filter whose copy still holds every key: nothing is rejected until the filter has been
     * rebuilt, and the rebuilt filter's copy is read afresh: a key the database no longer has is not in it, although
     * the rebuilt bitmap has the old one's name. (Maintenance runs when the test says, so that the moment between the
     * flush and the rebuild lasts.)
     */
    @Test
    void aFlushedFilterPassesCallsThroughAndItsRebuildGetsAFreshCopy() {
        List<Object> database = new CopyOnWriteArrayList<>(longs(0, 1000));
        database.add(5000L);
        try (TestRedisBackend instance = TestRedisBackend.on(server, QUIET)) {
            RedisBloomFilter filter = nearCopied(instance, "flushed");
            assertThat(filter.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
                    .isEqualTo(StartOutcome.LOADED_HERE);
            awaitCopy(filter);
            Instant firstRead = filter.details().nearCopy().lastRead();
            assertThat(filter.mightContain(5000L)).isTrue();
            long lacking = lackingKey(filter);

            server.command("FLUSHALL");
            database.remove(5000L);
            assertThat(filter.mightContain(lacking)).as("a key the copy lacks, with the bitmap gone").isTrue();
            assertThat(filter.trustedToReject()).isFalse();
            for (Object key : database) {
                assertThat(filter.mightContain(key)).as("key %s", key).isTrue();
            }

            awaitUntil("rebuilt from its key source, and its new copy read", () -> {
                filter.maintain();
                SharedFilterDetails.NearCopy copy = filter.details().nearCopy();
                return filter.trustedToReject() && copy.answering() && copy.lastRead().isAfter(firstRead);
            }, Duration.ofSeconds(15));
            for (Object key : database) {
                assertThat(filter.mightContain(key)).as("key %s", key).isTrue();
            }
            assertThat(filter.mightContain(5000L)).as("gone from the database, so from the rebuilt copy").isFalse();
            assertThat(filter.mightContain(lacking)).isFalse();
        }
    }

    @Test
    void aRebuildReplacesTheCopyWithOneOfTheNewGeneration() {
        List<Object> database = new CopyOnWriteArrayList<>(longs(0, 1000));
        database.add(5000L);
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = nearCopied(instance, "rebuilt");
            assertThat(filter.start(RecordingKeyFeed.reading(() -> List.copyOf(database))))
                    .isEqualTo(StartOutcome.LOADED_HERE);
            awaitCopy(filter);
            assertThat(filter.details().nearCopy().generation()).endsWith("#1");
            assertThat(filter.mightContain(5000L)).isTrue();

            database.remove(5000L);
            filter.put(6000L);
            database.add(6000L);
            assertThat(filter.rebuild()).isEqualTo(1001);
            // Until this instance has read the new generation, checks go to Redis, which answers for it.
            assertThat(filter.mightContain(6000L)).isTrue();
            awaitUntil("the copy of generation 2 read", () -> filter.details().nearCopy().answering()
                    && filter.details().nearCopy().generation().endsWith("#2"), Duration.ofSeconds(10));
            assertThat(filter.mightContain(5000L)).as("left out of the rebuild").isFalse();
            for (Object key : database) {
                assertThat(filter.mightContain(key)).as("key %s", key).isTrue();
            }
        }
    }

    /**
     * Redis stops answering: keys the copy holds (an add made meanwhile included) are still let through at once; a
     * key it lacks fails as it would without a copy, for the filter's on-backend-failure to decide. Nothing is
     * answered "absent" without Redis.
     */
    @Test
    void whileRedisDoesNotAnswerTheCopyLetsItsKeysThroughAndNothingIsRejected(TwoInstances two) {
        RedisBackendSettings shortAdds = new RedisBackendSettings(QUIET.keyPrefix(), QUIET.checkTimeout(),
                Duration.ofMillis(300), QUIET.breaker(), QUIET.lockTtl(), Duration.ofMillis(100),
                QUIET.pendingAddsLimit(), QUIET.rebuildGrace(), QUIET.probeInterval(), QUIET.reconnectDelay());
        TestRedisBackend instance = two.behindProxy(port -> TestRedisBackend.on(port, shortAdds));
        FreezableTcpProxy proxy = two.proxy();
        RedisBloomFilter filter = nearCopied(instance, "outage");
        assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
        awaitCopy(filter);
        long lacking = lackingKey(filter);

        proxy.freeze();
        long start = System.nanoTime();
        for (long key = 0; key < 1000; key++) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("answered here, with no timeout")
                .isLessThan(Duration.ofSeconds(1));
        assertThatThrownBy(() -> filter.mightContain(lacking)).as("a key the copy lacks")
                .isInstanceOf(RedisUnavailableException.class);
        assertThat(filter.put(5000L)).as("buffered").isTrue();
        assertThat(filter.mightContain(5000L)).as("an add made during the outage, answered here").isTrue();
        assertThat(filter.trustedToReject()).as("an add is owed to Redis").isFalse();

        proxy.thaw();
        awaitUntil("the buffered add delivered", () -> filter.status() == SharedFilterStatus.READY,
                Duration.ofSeconds(10));
        try (TestRedisBackend other = TestRedisBackend.on(server, QUIET)) {
            RedisBloomFilter elsewhere = other.backend.create("outage", SIZING, 2, 1);
            assertThat(elsewhere.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
            assertThat(elsewhere.mightContain(5000L)).as("the add reached Redis").isTrue();
        }
    }

    @Test
    void checksAreMeteredByWhatAnsweredThem() {
        try (TestRedisBackend instance = TestRedisBackend.on(server, QUIET)) {
            RedisBloomFilter backend = nearCopied(instance, "metered");
            NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("metered")
                    .expectedSize(SIZING.expectedSize()).errorRate(SIZING.errorRate()).growth(GrowthPolicy.NONE)
                    .redis(1, NearCopyMode.ON).build(), backend, FilterState.LOADING);
            MeterRegistry meters = new SimpleMeterRegistry();
            new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
            assertThat(backend.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            awaitCopy(backend);
            for (long key = 0; key < 100; key++) {
                assertThat(backend.mightContain(key)).isTrue();
            }
            long lacking = lackingKey(backend);
            assertThat(backend.mightContain(lacking)).isFalse();

            SharedFilterDetails.NearCopy copy = backend.details().nearCopy();
            assertThat(nearCopyChecks(meters, "near_copy")).isEqualTo(copy.answeredHere()).isGreaterThanOrEqualTo(100);
            assertThat(nearCopyChecks(meters, "redis")).isEqualTo(copy.sentToStore()).isEqualTo(2);
            Timer sent = meters.get("bloomguard.redis.check").tag("filter", "metered").timer();
            assertThat(sent.count()).as("checks timed in Redis: only those sent").isEqualTo(2);
        }
    }

    private static double nearCopyChecks(MeterRegistry meters, String answeredBy) {
        return meters.get("bloomguard.redis.near.copy.checks").tags("filter", "metered", "answered.by", answeredBy)
                .functionCounter().count();
    }

    private static RedisBloomFilter nearCopied(TestRedisBackend instance, String name) {
        return instance.backend.create(name, SIZING, 1, 1, AddFailurePolicy.BUFFER, true);
    }

    /** One script sent: {@code EVALSHA}, and {@code EVAL} after it the first time the server sees the script. */
    private static void assertOneScript(Map<String, Long> commands, String what) {
        assertThat(commands).as(what).containsEntry("evalsha", 1L);
        assertThat(commands.keySet()).as(what).isSubsetOf("evalsha", "eval");
    }

    /** The first absent key the filter rejects: one its copy lacks (others are false positives, which it holds). */
    private static long lackingKey(RedisBloomFilter filter) {
        long key = ABSENT;
        while (filter.mightContain(key)) {
            key++;
        }
        return key;
    }

    private static void awaitCopy(RedisBloomFilter filter) {
        awaitUntil("the near copy of " + filter.name() + " read", () -> filter.details().nearCopy().answering(),
                Duration.ofSeconds(10));
    }

    /** Key {@code present + i}, then key {@code absent + i}, for each {@code i} below {@code count}. */
    private static List<Object> mixed(long present, long absent, int count) {
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(present + i);
            keys.add(absent + i);
        }
        return keys;
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }

    /** Waits for {@code condition}, polling every 10 ms as the other Redis tests do. */
    private static void awaitUntil(String what, Callable<Boolean> condition, Duration atMost) {
        await(what).atMost(atMost).pollInterval(Duration.ofMillis(10)).until(condition);
    }
}
