package io.bloomguard.walk;

import io.bloomguard.core.BackendUnavailableException;
import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.walk.WalkApplication.SourceMode;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A seeded random walk over a filter's whole lifecycle, against the database as the oracle: creates (some rolled
 * back), deletes (of rows, of no row, two at once of one row, inside a savepoint that is rolled back), rebuilds, key
 * sources that fail or come back short, growth past the expected size and, for {@code redis}, a Redis restart that
 * loses every key. After every step, no row in the table is rejected by any instance; at the end every filter is
 * {@code READY} and lets through at most 1.3·ε of absent keys.
 *
 * <p>{@code local} filters run on one instance (a local filter knows only what its instance wrote); {@code redis} ones
 * on two, each step's write made on one of them at random. The seeds are fixed; {@code -Dbloomguard.walk.steps=2000}
 * (and {@code -Dbloomguard.walk.seed=...}, {@code -Dbloomguard.walk.kinds=REDIS_COUNTING}) walks further.
 */
@Timeout(300)
@ExtendWith(RedisServerExtension.class)
class LifecycleWalkIT {

    /** Steps one after another; OverlapWalkIT walks the overlaps, so a short sequential walk is enough by default. */
    private static final int STEPS = Integer.getInteger("bloomguard.walk.steps", 100);

    /** Rows a create step adds, each in a transaction of its own: enough for growth within the walk. */
    private static final int ROWS_PER_CREATE = 8;

    /** Above this many rows a step checks a sample of them, and every 20th step all (a layered filter's check is one
     * script per key). */
    private static final int SAMPLE = 300;

    /** Small enough that the walk's creates (about 5 rows a step) grow it past its expected size. */
    private static final int EXPECTED_SIZE = 400;

    private static final long SEED = Long.getLong("bloomguard.walk.seed", 20261127L);

    private static final double ERROR_RATE = 0.01;

    /** The filters walked: backend, type and growth, and for redis its shards. */
    enum Walked {
        LOCAL_PLAIN("local", "bloom", "rebuild", 1),
        LOCAL_COUNTING("local", "counting", "rebuild", 1),
        LOCAL_SCALE("local", "bloom", "scale", 1),
        REDIS_PLAIN("redis", "bloom", "rebuild", 1),
        REDIS_COUNTING("redis", "counting", "rebuild", 1),
        REDIS_SCALE("redis", "bloom", "scale", 1),
        REDIS_TWO_SHARDS("redis", "bloom", "rebuild", 2);

        final String backend;
        final String type;
        final String growth;
        final int shards;

        Walked(String backend, String type, String growth, int shards) {
            this.backend = backend;
            this.type = type;
            this.growth = growth;
            this.shards = shards;
        }

        boolean shared() {
            return backend.equals("redis");
        }

        boolean counting() {
            return type.equals("counting");
        }

    }

    private static RedisServerProcess redis;

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    /** What the walk did to each id, and at which step: said when a row is rejected. */
    private final Map<Long, List<String>> events = new HashMap<>();

    private int step;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @AfterEach
    void close() {
        instances.forEach(ConfigurableApplicationContext::close);
        WalkApplication.SOURCE.set(SourceMode.WHOLE);
    }

    /** The kinds walked: all, or those {@code -Dbloomguard.walk.kinds=REDIS_PLAIN,LOCAL_SCALE} names. */
    static java.util.stream.Stream<Walked> kinds() {
        String named = System.getProperty("bloomguard.walk.kinds", "");
        return java.util.Arrays.stream(Walked.values())
                .filter(kind -> named.isBlank() || List.of(named.split(",")).contains(kind.name()));
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void noRowIsEverRejectedAlongTheWalk(Walked walked) throws Exception {
        String database = "jdbc:h2:mem:walk-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
        String prefix = "walk-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        instances.add(start(walked, database, prefix));
        if (walked.shared()) {
            instances.add(start(walked, database, prefix));
        }
        SplittableRandom random = new SplittableRandom(SEED + walked.ordinal());
        Set<Long> rolledBack = new HashSet<>();
        int restartAt = walked.shared() ? STEPS / 2 : -1;
        java.util.Deque<String> trail = new java.util.ArrayDeque<>();
        for (step = 0; step < STEPS; step++) {
            String action = (step == restartAt) ? restartRedis() : step(walked, random, rolledBack);
            trail.addLast("step " + step + ": " + action);
            if (trail.size() > 8) {
                trail.removeFirst();
            }
            assertNoRowRejected(walked, String.join("; ", trail), step % 20 == 0 ? null : random);
        }
        settle();
        for (ConfigurableApplicationContext instance : instances) {
            NamedBloomFilter filter = filter(instance);
            // An instance may find the generation it reads swapped for a larger one (growth) and pass calls through
            // until its next refresh: it must be back within moments.
            await("absent keys rejected again").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(filter.state()).as("state at the end").isEqualTo(FilterState.READY);
                assertThat(absentShare(filter)).as("absent keys let through at the end")
                        .isLessThanOrEqualTo(1.3 * ERROR_RATE);
            });
        }
        assertNoRowRejected(walked, "the end", null);
    }

    /** One random step; returns what it did, for the failure message. */
    private String step(Walked walked, SplittableRandom random, Set<Long> rolledBack) throws Exception {
        ConfigurableApplicationContext on = instances.get(random.nextInt(instances.size()));
        WalkApplication.Rows rows = on.getBean(WalkApplication.Rows.class);
        int dice = random.nextInt(100);
        if (dice < 62 || (!walked.counting() && dice < 88)) {
            long first = newId(random);
            create(rows, first, instances.indexOf(on));
            for (int i = 1; i < ROWS_PER_CREATE; i++) {
                create(rows, newId(random), instances.indexOf(on));
            }
            return "create " + first + " and " + (ROWS_PER_CREATE - 1) + " more";
        }
        if (dice < 66 || !walked.counting() && dice < 92) {
            long id = newId(random);
            try {
                rows.createAndFail(id);
            }
            catch (IllegalStateException expected) {
                rolledBack.add(id);
            }
            return "create rolled back " + id;
        }
        if (walked.counting() && dice < 92) {
            return delete(on, rows, random, rolledBack, dice);
        }
        return switch (dice % 4) {
            case 0 -> rebuild(on, SourceMode.SHORT);
            case 1 -> rebuild(on, SourceMode.FAILING);
            default -> rebuild(on, SourceMode.WHOLE);
        };
    }

    private void create(WalkApplication.Rows rows, long id, int instance) {
        rows.create(id);
        event(id, "created on instance " + (instance + 1));
    }

    private void event(long id, String what) {
        events.computeIfAbsent(id, unused -> new ArrayList<>()).add("step " + step + ": " + what);
    }

    private String delete(ConfigurableApplicationContext on, WalkApplication.Rows rows, SplittableRandom random,
            Set<Long> rolledBack, int dice) throws Exception {
        WalkApplication.Deletions deletions = on.getBean(WalkApplication.Deletions.class);
        List<Long> existing = rows.all();
        if (dice < 71 && !rolledBack.isEmpty()) {
            long id = rolledBack.iterator().next(); // in the filter, not in the table
            rolledBack.remove(id);
            assertThat(deletions.delete(id)).as("rows deleted").isZero();
            return "delete of no row " + id;
        }
        if (existing.isEmpty()) {
            return "nothing to delete";
        }
        long id = existing.get(random.nextInt(existing.size()));
        if (dice < 81) {
            deletions.delete(id);
            event(id, "deleted");
            return "delete " + id;
        }
        if (dice < 86) {
            on.getBean(WalkApplication.Savepoints.class).deleteAndRollBackToSavepoint(id);
            event(id, "deleted in a savepoint rolled back");
            assertThat(rows.all()).as("rolled back to the savepoint").contains(id);
            return "delete rolled back to a savepoint " + id;
        }
        WalkApplication.Deletions other = instances.get(instances.size() - 1).getBean(WalkApplication.Deletions.class);
        CyclicBarrier together = new CyclicBarrier(2);
        // The second on this thread: CompletableFuture's pool may have a single thread (Java 25 on two cores), and
        // two deletes waiting for each other there would never meet.
        CompletableFuture<Integer> first = OwnThread.supply(() -> deleteWhenBoth(deletions, id, together));
        int second = deleteWhenBoth(other, id, together);
        assertThat(first.get() + second).as("rows deleted by two deletes of one row").isEqualTo(1);
        return "two deletes at once of " + id;
    }

    private static int deleteWhenBoth(WalkApplication.Deletions deletions, long id, CyclicBarrier together) {
        try {
            together.await();
            return deletions.delete(id);
        }
        catch (RuntimeException ex) {
            return 0; // the lock wait timed out: this one deleted nothing, and removed nothing
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** A rebuild from a source in {@code mode}; a refusal (held back, failed, under way) changes nothing. */
    private String rebuild(ConfigurableApplicationContext on, SourceMode mode) {
        WalkApplication.SOURCE.set(mode);
        try {
            filter(on).rebuild();
            return "rebuild (" + mode + ")";
        }
        catch (RebuildRefusedException | RebuildInProgressException ex) {
            return "rebuild refused (" + mode + "): " + ex.getMessage();
        }
        catch (RuntimeException ex) { // the key source failed
            return "rebuild failed (" + mode + "): " + ex.getMessage();
        }
        finally {
            WalkApplication.SOURCE.set(SourceMode.WHOLE);
        }
    }

    private String restartRedis() {
        redis.restart();
        return "redis restarted empty";
    }

    /** Every row, or with {@code sample} a sample of {@value #SAMPLE} when there are more. */
    private void assertNoRowRejected(Walked walked, String after, @Nullable SplittableRandom sample) {
        List<Long> rows = instances.get(0).getBean(WalkApplication.Rows.class).all();
        if (sample != null && rows.size() > SAMPLE) {
            List<Long> some = new ArrayList<>(SAMPLE);
            for (int i = 0; i < SAMPLE; i++) {
                some.add(rows.get(sample.nextInt(rows.size())));
            }
            rows = some;
        }
        for (ConfigurableApplicationContext instance : instances) {
            boolean[] found;
            try {
                found = filter(instance).mightContainAll(rows);
            }
            catch (BackendUnavailableException ex) {
                continue; // Redis restarting: the guard calls through (on-backend-failure: allow)
            }
            List<Long> rejected = new ArrayList<>();
            for (int i = 0; i < found.length; i++) {
                if (!found[i]) {
                    rejected.add(rows.get(i));
                }
            }
            assertThat(rejected).as("%s, instance %d of %d, %s: rows rejected after %s; %s; instances: %s", walked,
                    instances.indexOf(instance) + 1, instances.size(), filter(instance).state(), after,
                    rejected.stream().limit(5).map(id -> id + " " + events.get(id)).toList(),
                    instances.stream().map(each -> filter(each).backend().toString()).toList()).isEmpty();
        }
    }

    /**
     * Ends the walk as an operator would: the key source whole, one rebuild that goes through, growth done, every
     * instance ready.
     */
    private void settle() {
        WalkApplication.SOURCE.set(SourceMode.WHOLE);
        NamedBloomFilter first = filter(instances.get(0));
        await("a rebuild that goes through").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    try {
                        first.rebuild();
                        return true;
                    }
                    catch (IllegalStateException notNow) { // another one under way, Redis still rebuilding
                        return false;
                    }
                });
        int rows = instances.get(0).getBean(WalkApplication.Rows.class).all().size();
        await("every instance ready, grown past the rows").atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(instances.stream().map(LifecycleWalkIT::filter)
                        .map(filter -> filter.state() + (filter.growing() ? ", growing" : "") + ", capacity "
                                + filter.capacity() + " for " + rows + " rows, about "
                                + filter.approximateElementCount() + " keys; " + filter.backend())
                        .toList()).as("every instance").allMatch(each -> each.startsWith("READY, capacity ")
                                && Long.parseLong(each.split(" ")[2]) > rows));
    }

    /** Share of 20,000 ids never created (negative: the walk creates positive ones) that the filter lets through. */
    private static double absentShare(NamedBloomFilter filter) {
        SplittableRandom random = new SplittableRandom(SEED);
        int probes = 20_000;
        int passed = 0;
        for (int i = 0; i < probes; i++) {
            passed += filter.mightContain(-1 - random.nextLong(1L << 40)) ? 1 : 0;
        }
        return (double) passed / probes;
    }

    private static long newId(SplittableRandom random) {
        return 1 + random.nextLong(1L << 40);
    }

    private ConfigurableApplicationContext start(Walked walked, String database, String prefix) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.datasource.url", database);
        properties.put("spring.data.redis.host", "127.0.0.1");
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("bloom-guard.redis.key-prefix", prefix);
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.put("bloom-guard.redis.check-timeout", "2s"); // the walk's own checks, on a busy machine
        properties.put("bloom-guard.filters.walk.backend", walked.backend);
        properties.put("bloom-guard.filters.walk.type", walked.type);
        properties.put("bloom-guard.filters.walk.growth", walked.growth);
        properties.put("bloom-guard.filters.walk.redis.shards", walked.shards);
        properties.put("bloom-guard.filters.walk.expected-size", EXPECTED_SIZE);
        properties.put("bloom-guard.filters.walk.error-rate", ERROR_RATE);
        return new SpringApplicationBuilder(WalkApplication.class).web(WebApplicationType.NONE)
                .properties(properties).run();
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext instance) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(instance.getBeanFactory(), NamedBloomFilter.class,
                "walk");
    }
}
