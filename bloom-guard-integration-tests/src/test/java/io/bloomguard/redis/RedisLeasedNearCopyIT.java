package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leased near copy ({@code redis.near-copy: leased}) against a real {@code redis-server}: under a flood it answers
 * absent keys with no command to Redis, and stops asking for leases once the flood ends; across two instances, one of
 * them flooded and its subscriber connection lagging 0, half a lease or two leases behind, a key the other put is
 * never answered "absent" once its put returned; and a writer that does not wait (an instance configured
 * {@code ordered}, as one on a version without leases) is seen to break that, so the test can see a false negative.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisLeasedNearCopyIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final long ABSENT = 1L << 40;

    /** Short leases, so that the writers' waits keep the walks short. */
    private static final Duration LEASE = Duration.ofMillis(20);

    /** The lease of the walks whose subscriber lags 0, half a lease and two leases. */
    private static final Duration WALK_LEASE = Duration.ofMillis(40);

    private static final RedisBackendSettings LEASED = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
            .nearCopyLease(LEASE).build();

    /** Threads that flood the looking instance: many lookups at once, as a flood is. */
    private static final int FLOOD_THREADS = 8;

    /** A parallel stream run in it looks keys up on 16 threads. */
    private static final ForkJoinPool FLOODERS = new ForkJoinPool(16);

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess started) {
        server = started;
    }

    @Test
    void underAFloodAbsentKeysAreAnsweredWithNoCommandAndIdleItSendsNoBarrier() {
        RedisBackendSettings settings = RedisBackendSettingsBuilder.from(TestRedisBackend.FAST)
                .nearCopyLease(Duration.ofMillis(100)).build();
        try (TestRedisBackend instance = TestRedisBackend.on(server, settings)) {
            RedisBloomFilter filter = leased(instance, "flood");
            assertThat(filter.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            long[] next = {ABSENT};
            awaitLease(filter, next);
            long lookups = 5_000;
            long rejected = 0;
            try (RedisMonitor monitor = RedisMonitor.on(server)) {
                monitor.commandsSinceLastCall();
                for (long i = 0; i < lookups; i++) {
                    rejected += filter.mightContain(next[0]++) ? 0 : 1;
                }
                Map<String, Long> commands = monitor.commandsSinceLastCall();
                long sent = commands.values().stream().mapToLong(Long::longValue).sum();
                assertThat(sent).as("commands of any kind for %d absent keys: %s; %s, lease state %s", lookups, commands,
                        filter.details().nearCopy(), leaseState("flood"))
                        .isLessThanOrEqualTo(lookups / 100);
                assertThat(rejected).as("absent keys rejected (ε = 1%)").isGreaterThan(lookups * 95 / 100);

                // The flood ends: the shard drains, then switches off, and no barrier goes out any more.
                await("the lease state off once no instance asks for leases").atMost(Duration.ofSeconds(10))
                        .until(() -> "off".equals(leaseState("flood")));
                monitor.commandsSinceLastCall();
                await("no barrier while idle").during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
                        .until(() -> !monitor.commandsSinceLastCall().containsKey("ping"));
            }
            assertThat(filter.details().nearCopy().rejectedHere()).isGreaterThanOrEqualTo(rejected);
        }
    }

    /**
     * A leased filter on a client with no subscriber connection (here a port that opens none, as with Jedis) keeps
     * no copy in step and takes no lease: its filter's state, none at first (every put waits), is switched off all
     * the same, puts stop waiting, and a flood does not switch it on.
     */
    @Test
    void withoutASubscriberConnectionTheStateIsSwitchedOffAndPutsStopWaiting() {
        try (TestRedisBackend instance = TestRedisBackend.intercepting(server, LEASED)) {
            RedisBloomFilter filter = leased(instance, "unsubscribed");
            assertThat(filter.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            await("the lease state off").atMost(Duration.ofSeconds(10)).until(() -> leaseState("unsubscribed"),
                    state -> state.equals("off"));
            // A flood here cannot switch leases on: no copy here could take one, and writers would wait for nothing.
            FLOODERS.submit(() -> LongStream.range(ABSENT, ABSENT + 2_000).parallel().forEach(filter::mightContain))
                    .join();
            await("still off after a flood").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> leaseState("unsubscribed"), state -> state.equals("off"));
            assertThat(filter.details().nearCopy().absentKeys()).isEqualTo("store");
        }
    }

    /**
     * A copy whose lease state is older than Redis's (a switch it did not hear, as when a whole read's state read
     * raced an announcement) still gets leases: the flood asks to switch on, which finds it on and announces it again.
     */
    @Test
    void aCopyThatMissedTheSwitchOnLearnsItFromTheFloodAndLeases() {
        try (TestRedisBackend instance = TestRedisBackend.on(server, LEASED)) {
            RedisBloomFilter filter = leased(instance, "missed");
            assertThat(filter.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            await("in step").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
                    .until(() -> !filter.details().nearCopy().absentKeys().equals("store"));
            // Switched on behind the copy's back: stored, never announced.
            server.command("HSET", TestRedisBackend.FAST.keyPrefix() + "{missed}:meta", "lease",
                    "on " + LEASE.toMillis());
            long[] next = {ABSENT};
            await("a lease, once the copy heard the state").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                        long from = next[0];
                        long to = next[0] += 400;
                        FLOODERS.submit(() -> LongStream.range(from, to).parallel().forEach(filter::mightContain))
                                .join();
                        assertThat(filter.details().nearCopy().absentKeys()).as("%s", filter.details().nearCopy())
                                .isEqualTo("lease");
                    });
        }
    }

    /**
     * A puts keys one by one; right after each put returns, B, flooded with absent keys and its subscriber lagging
     * {@code lagMillis}, looks the key up: never "absent". With no lag and half a lease, B answers most absent keys
     * under its lease meanwhile (a lease granted by a barrier whose reply lags two leases has lapsed, and B answers
     * after a barrier instead).
     */
    @ParameterizedTest(name = "subscriber lag {0} ms")
    @ValueSource(ints = {0, 20, 80})
    void aKeyPutByOneInstanceIsFoundByAnotherUnderItsLeaseWhateverItsLag(int lagMillis) throws Exception {
        String name = "walk-" + lagMillis;
        // Leases of 40 ms: at half a lease behind, a renewal still has ~20 ms of its lease left when its reply arrives,
        // room for a loaded machine's scheduling delays.
        RedisBackendSettings walking = RedisBackendSettingsBuilder.from(LEASED).nearCopyLease(WALK_LEASE).build();
        try (TestRedisBackend a = TestRedisBackend.on(server, walking);
                TestRedisBackend b = TestRedisBackend.lagging(server, walking, Duration.ofMillis(lagMillis))) {
            RedisBloomFilter writing = leased(a, name);
            RedisBloomFilter reading = leased(b, name);
            Walk walk = new Walk(writing, reading, name);
            assertThat(walk.falseNegatives(120)).as("keys B answered absent after A's put returned").isZero();
            if (lagMillis < WALK_LEASE.toMillis()) {
                // Two leases behind, a barrier's reply comes after the lease it would grant has lapsed: B answers
                // after barriers, slower, and the state may drain for want of leases. Here it must have been on.
                assertThat(walk.lastState).as("leases were on during the walk").startsWith("on");
                assertThat(walk.leasedRejections).as("absent keys B answered under its lease during the walk")
                        .isGreaterThan(0);
            }
        }
    }

    /**
     * The negative control: A is configured {@code ordered}, so it reads no lease state and never waits, as an instance
     * on a version without leases would; B's lease then vouches for a copy that lacks A's key.
     */
    @Test
    void aWriterThatDoesNotWaitIsSeenToBreakTheRule() throws Exception {
        // A lease ten lags long: B holds one almost all the time, so that a lookup right after a put finds one.
        RedisBackendSettings longer = RedisBackendSettingsBuilder.from(LEASED).nearCopyLease(Duration.ofMillis(100))
                .build();
        try (TestRedisBackend a = TestRedisBackend.on(server, longer);
                TestRedisBackend b = TestRedisBackend.lagging(server, longer, Duration.ofMillis(10))) {
            RedisBloomFilter writing = a.backend.create("control", SIZING, 1, 1, AddFailurePolicy.BUFFER,
                    NearCopyMode.ORDERED);
            RedisBloomFilter reading = leased(b, "control");
            Walk walk = new Walk(writing, reading, "control");
            assertThat(walk.falseNegatives(200)).as("keys B answered absent although A's put had returned (%d absent"
                    + " keys answered under a lease meanwhile)", walk.leasedRejections).isGreaterThan(0);
            assertThat(walk.lastState).as("leases were on during the walk").startsWith("on");
        }
    }

    /**
     * The ordered walk's faults with leased instances, B flooded throughout: B's subscriber connection killed, Redis
     * hung, restarted empty, the filter rebuilt and grown. B never answers "absent" for a key A added.
     */
    @Test
    void aKeyAnotherInstanceAddedIsNeverAnsweredAbsentThroughDropsHangsRestartsAndRebuildsDuringAFlood()
            throws Exception {
        // Eight flooding threads make many checks: the breaker opens on a rate of failures, not on one, and a check
        // that waits for a loaded machine is not a failure. (FAST's breaker suits one thread's checks.)
        RedisBackendSettings flooded = RedisBackendSettingsBuilder.from(LEASED).checkTimeout(Duration.ofSeconds(1))
                .breaker(new RedisBreakerSettings(50, 20, Duration.ofSeconds(1), Duration.ofMillis(200))).build();
        try (TestRedisBackend a = TestRedisBackend.on(server, flooded);
                TestRedisBackend b = TestRedisBackend.on(server, flooded)) {
            RedisBloomFilter looking = leased(b, "faults");
            try (OrderedWalk walk = new OrderedWalk(leased(a, "faults"), looking, 360);
                    Flood flood = new Flood(looking)) {
                walk.run(step -> switch (step) {
                    case 1 -> server.command("CLIENT", "KILL", "TYPE", "pubsub");
                    case 2 -> walk.inBackground(() -> server.command("DEBUG", "SLEEP", "0.3"));
                    case 4 -> walk.rebuild();
                    case 6 -> walk.restartOnce(server::restart);
                    case 8 -> walk.grow();
                    default -> null;
                });
                assertThat(flood.lookups()).as("absent keys looked up during the walk").isPositive();
            }
        }
    }

    /** Absent keys looked up on many threads until closed; a lookup that fails (Redis hung) is not an answer. */
    private static final class Flood implements AutoCloseable {

        private final AtomicBoolean flooding = new AtomicBoolean(true);
        private final ExecutorService threads = Executors.newFixedThreadPool(FLOOD_THREADS);
        private final java.util.concurrent.atomic.LongAdder lookups = new java.util.concurrent.atomic.LongAdder();

        Flood(RedisBloomFilter filter) {
            for (int thread = 0; thread < FLOOD_THREADS; thread++) {
                long first = (ABSENT << 2) + thread * (1L << 32);
                threads.submit(() -> {
                    for (long key = first; flooding.get(); key++) {
                        try {
                            filter.mightContain(key);
                            lookups.increment();
                        }
                        catch (RuntimeException failed) {
                            // Redis hung or restarting: the guard lets such a call through
                        }
                    }
                });
            }
        }

        long lookups() {
            return lookups.sum();
        }

        @Override
        public void close() {
            flooding.set(false);
            threads.shutdownNow();
        }
    }

    /** A saves and B looks up, while B floods itself with absent keys on a thread of its own. */
    private static final class Walk {

        private final RedisBloomFilter writing;
        private final RedisBloomFilter reading;
        private final String name;
        private long leasedRejections;
        private String lastState = "";

        Walk(RedisBloomFilter writing, RedisBloomFilter reading, String name) {
            this.writing = writing;
            this.reading = reading;
            this.name = name;
            assertThat(writing.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(reading.start(feed(longs(0, 1000)))).isEqualTo(StartOutcome.ALREADY_LOADED);
        }

        long falseNegatives(int keys) throws Exception {
            long[] next = {ABSENT};
            awaitLease(reading, next);
            AtomicBoolean walking = new AtomicBoolean(true);
            ExecutorService flood = Executors.newFixedThreadPool(FLOOD_THREADS);
            long falseNegatives = 0;
            try {
                List<Future<?>> flooding = new ArrayList<>();
                for (int thread = 0; thread < FLOOD_THREADS; thread++) {
                    long first = (ABSENT << 1) + thread * (1L << 32);
                    flooding.add(flood.submit(() -> {
                        for (long key = first; walking.get(); key++) {
                            reading.mightContain(key);
                        }
                    }));
                }
                long before = reading.details().nearCopy().rejectedHere();
                for (int i = 0; i < keys; i++) {
                    long key = 5_000 + i * 7919L;
                    writing.put(key); // the row commits once this returns
                    falseNegatives += reading.mightContain(key) ? 0 : 1;
                }
                leasedRejections = reading.details().nearCopy().rejectedHere() - before;
                walking.set(false);
                for (Future<?> each : flooding) {
                    each.get();
                }
            }
            finally {
                walking.set(false);
                flood.shutdownNow();
            }
            lastState = leaseState(name);
            return falseNegatives;
        }
    }

    /** Floods {@code filter} with absent keys until it answers them under a lease. */
    private static void awaitLease(RedisBloomFilter filter, long[] next) {
        await("a lease on the near copy of " + filter.name()).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(1))
                .untilAsserted(() -> {
                    long from = next[0];
                    next[0] += 400;
                    // From many threads, as a flood comes: one thread waiting on barriers is no flood.
                    long to = next[0];
                    FLOODERS.submit(() -> LongStream.range(from, to).parallel().forEach(filter::mightContain)).join();
                    String absentKeys = filter.details().nearCopy().absentKeys();
                    assertThat(absentKeys.equals("lease")
                            || !absentKeys.equals("store") && leaseState(filter.name()).startsWith("on"))
                            .as("%s, lease state %s", filter.details().nearCopy(), leaseState(filter.name()))
                            .isTrue();
                });
    }

    private static String leaseState(String name) {
        String state = server.command("HGET", TestRedisBackend.FAST.keyPrefix() + "{" + name + "}:meta", "lease");
        return (state != null) ? state : "";
    }

    private static RedisBloomFilter leased(TestRedisBackend instance, String name) {
        return instance.backend.create(name, SIZING, 1, 1, AddFailurePolicy.BUFFER, NearCopyMode.LEASED);
    }

    private static KeyFeed feed(List<Object> keys) {
        return batches -> {
            batches.accept(new ArrayList<>(keys));
            return keys.size();
        };
    }

    private static List<Object> longs(long from, long to) {
        return LongStream.range(from, to).boxed().map(Object.class::cast).toList();
    }
}
