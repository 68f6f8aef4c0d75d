package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterDetails;
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
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A near copy that reads in order ({@code redis.near-copy: ordered}), against a real {@code redis-server}: in step, it
 * answers absent keys after a barrier with no read of their bits, one barrier for a batch; and across two instances a
 * key one of them added is never answered "absent" by the other, while the subscriber connection is killed, Redis
 * hangs, restarts empty, and the filter is rebuilt and grows.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisOrderedNearCopyIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /** Keys of the walks across two instances, 4·10⁴ (a counting filter's, half): {@code -Dbloomguard.ordered.keys=...}. */
    private static final int KEYS = Integer.getInteger("bloomguard.ordered.keys", 40_000);

    private static final long ABSENT = 1L << 40;

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess started) {
        server = started;
    }

    @Test
    void inStepItAnswersAbsentKeysAfterABarrierWithNoReadOfTheirBits() {
        try (TestRedisBackend instance = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = ordered(instance, "absent");
            assertThat(filter.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            awaitInStep(filter);
            long rejected = 0;
            try (RedisMonitor monitor = RedisMonitor.on(server)) {
                for (long key = ABSENT; key < ABSENT + 200; key++) {
                    rejected += filter.mightContain(key) ? 0 : 1;
                }
                assertThat(rejected).as("absent keys rejected (ε = 1%)").isGreaterThan(190);
                Map<String, Long> commands = withoutMaintenance(monitor.commandsSinceLastCall());
                assertThat(commands).as("a barrier per check, no read of a key's bits").containsOnlyKeys("ping");
                assertThat(commands.get("ping")).isLessThanOrEqualTo(200L);

                boolean[] batch = filter.mightContainAll(longs(ABSENT + 1000, ABSENT + 1100));
                assertThat(withoutMaintenance(monitor.commandsSinceLastCall())).as("one barrier for a batch")
                        .isEqualTo(Map.of("ping", 1L));
                for (boolean answer : batch) {
                    rejected += answer ? 0 : 1;
                }
                assertThat(filter.mightContainAsync(ABSENT + 5000).join()).isFalse();
                rejected++;
            }
            SharedFilterDetails.NearCopy copy = filter.details().nearCopy();
            assertThat(copy.absentKeys()).isEqualTo("barrier");
            assertThat(copy.absentKeysToStoreSince()).isNull();
            assertThat(copy.rejectedHere()).isEqualTo(rejected);
            assertThat(copy.bytes()).isEqualTo(SIZING.byteSize());
        }
    }

    /**
     * A saves, B looks the key up at once, {@value #KEYS} times (or as set), while the walk kills B's subscriber
     * connection, hangs Redis, restarts it empty, rebuilds the filter and grows it: B never answers "absent" for a
     * key A added.
     */
    @Test
    void aKeyAnotherInstanceAddedIsNeverAnsweredAbsentThroughDropsHangsRestartsAndRebuilds() throws Exception {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST);
                OrderedWalk walk = new OrderedWalk(ordered(a, "walk"), ordered(b, "walk"), KEYS)) {
            walk.run(step -> switch (step) {
                case 1 -> server.command("CLIENT", "KILL", "TYPE", "pubsub");
                case 2 -> walk.inBackground(() -> server.command("DEBUG", "SLEEP", "0.4"));
                case 4 -> walk.rebuild();
                case 6 -> walk.restartOnce(server::restart); // empty: the instances rebuild it from the key source
                case 8 -> walk.grow();
                default -> null;
            });
        }
    }

    /**
     * A {@code FLUSHALL} that drops no connection publishes nothing, and another instance then loads the filter afresh
     * with a key the old build never held: the copy of the old build, still in step as far as its feed can tell, must
     * not answer that key "absent". The lookup's probe finds the build it mirrors gone, and the key goes to Redis.
     */
    @Test
    void afterAFlushallACopyInStepStopsAnsweringAbsentKeys() {
        RedisBackendSettings hourly = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
                .refreshInterval(Duration.ofHours(1)).build();
        try (TestRedisBackend a = TestRedisBackend.on(server, hourly);
                TestRedisBackend b = TestRedisBackend.on(server, hourly)) {
            assertThat(ordered(a, "flushed").start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            RedisBloomFilter reading = ordered(b, "flushed");
            assertThat(reading.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.ALREADY_LOADED);
            awaitInStep(reading);
            long added = ABSENT;
            while (reading.mightContain(added)) {
                added++; // a key the old build does not hold, answered "absent" by the copy
            }
            server.command("FLUSHALL");
            List<Object> afresh = longs(0, 1000);
            afresh.add(added);
            try (TestRedisBackend c = TestRedisBackend.on(server, hourly)) {
                assertThat(ordered(c, "flushed").start(feed(afresh))).as("loaded afresh after the FLUSHALL")
                        .isEqualTo(StartOutcome.LOADED_HERE);
                assertThat(reading.mightContain(added)).as("a key of the new build, looked up on the old copy")
                        .isTrue();
                assertThat(reading.mightContainAll(List.of(added))).as("in a batch").containsOnly(true);
                assertThat(reading.mightContainAsync(added).join()).as("asynchronously").isTrue();
            }
        }
    }

    /**
     * A counting filter: the copy follows removes too, in order. A removed key is answered "absent" after a barrier,
     * with no read of its counters; a key put twice and removed once stays in.
     */
    @Test
    void aCountingCopyInStepFollowsRemovesToo() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter writing = orderedCounting(a, "counting");
            RedisBloomFilter reading = orderedCounting(b, "counting");
            assertThat(writing.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(reading.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.ALREADY_LOADED);
            awaitInStep(reading);
            writing.put(5000L);
            writing.put(5000L);
            try (RedisMonitor monitor = RedisMonitor.on(server)) {
                for (long key = 0; key < 100; key++) {
                    assertThat(writing.remove(key)).as("removed %d", key).isTrue();
                }
                assertThat(writing.remove(5000L)).isTrue();
                monitor.commandsSinceLastCall();
                long stillIn = 0;
                for (long key = 0; key < 100; key++) {
                    stillIn += reading.mightContain(key) ? 1 : 0;
                }
                assertThat(reading.mightContain(5000L)).as("put twice, removed once").isTrue();
                for (long key = 100; key < 1000; key++) {
                    assertThat(reading.mightContain(key)).as("key %d", key).isTrue();
                }
                assertThat(stillIn).as("removed keys let through (false positives of 900 keys at 1%)")
                        .isLessThan(10);
                assertThat(withoutMaintenance(monitor.commandsSinceLastCall())).as("no read of counters")
                        .containsOnlyKeys("ping");
            }
        }
    }

    /** The walk of two instances on a counting filter, keys removed as rows are deleted. */
    @Test
    void aCountingFilterKeyAnotherInstanceAddedIsNeverAnsweredAbsent() throws Exception {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST);
                OrderedWalk walk = new OrderedWalk(orderedCounting(a, "counting-walk"),
                        orderedCounting(b, "counting-walk"), KEYS / 2)) {
            walk.run(step -> switch (step) {
                case 1 -> server.command("CLIENT", "KILL", "TYPE", "pubsub");
                case 2 -> walk.inBackground(() -> server.command("DEBUG", "SLEEP", "0.4"));
                case 4 -> walk.rebuild();
                case 6 -> walk.grow();
                default -> null;
            });
        }
    }

    /**
     * The walk on a filter that grows by layers: its copy holds every layer, falls out of step when one is added, and
     * is read whole again with the new one.
     */
    @Test
    void aFilterThatGrowsByLayersKeepsTheRuleAsLayersAreAdded() throws Exception {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST);
                OrderedWalk walk = new OrderedWalk(orderedLayers(a, "layers-walk"), orderedLayers(b, "layers-walk"),
                        KEYS)) {
            walk.run(step -> switch (step) {
                case 1 -> server.command("CLIENT", "KILL", "TYPE", "pubsub");
                case 2 -> walk.inBackground(() -> server.command("DEBUG", "SLEEP", "0.4"));
                case 9 -> walk.rebuild(); // its layers made one again
                default -> null;
            });
            assertThat(walk.maxLayers()).as("layers added during the walk").isGreaterThan(1);
        }
    }

    private static RedisBloomFilter orderedLayers(TestRedisBackend instance, String name) {
        return instance.backend.createScalable(name, FilterSizing.of(2_000, 0.01), 1, AddFailurePolicy.BUFFER,
                NearCopyMode.ORDERED);
    }

    private static RedisBloomFilter orderedCounting(TestRedisBackend instance, String name) {
        return instance.backend.createCounting(name, SIZING, 1, 1, AddFailurePolicy.BUFFER, NearCopyMode.ORDERED);
    }

    private static RedisBloomFilter ordered(TestRedisBackend instance, String name) {
        return instance.backend.create(name, SIZING, 1, 1, AddFailurePolicy.BUFFER, NearCopyMode.ORDERED);
    }

    private static void awaitInStep(RedisBloomFilter filter) {
        await("the near copy of " + filter.name() + " in step").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> filter.details().nearCopy().absentKeys().equals("barrier"));
    }

    /** The commands a test caused, without the maintenance's reads of the metadata and the fill every refresh. */
    private static Map<String, Long> withoutMaintenance(Map<String, Long> commands) {
        Map<String, Long> caused = new java.util.HashMap<>(commands);
        caused.keySet().removeAll(Set.of("hgetall", "exists", "evalsha", "eval", "bitcount", "hget", "get"));
        return caused;
    }

    private static KeyFeed feed(List<Object> keys) {
        return batches -> {
            batches.accept(new ArrayList<>(keys));
            return keys.size();
        };
    }

    private static List<Object> longs(long from, long to) {
        List<Object> keys = new ArrayList<>();
        LongStream.range(from, to).forEach(keys::add);
        return keys;
    }
}
