package io.bloomguard.walk;

import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.FreezableTcpProxy;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.bloomguard.walk.OverlapApplication.Pause;
import io.bloomguard.walk.OverlapApplication.SourceMode;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.reactive.TransactionalOperator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A seeded walk in which steps overlap, as they do in production, against the database as the oracle. Each round
 * starts {@value #WRITERS} writer threads whose transactions put their keys (a repository {@code save} with
 * {@code @BloomPut}) and then stay open while the round's step runs — a rebuild of some kind, a Redis fault, an
 * instance restarting — and then commit or roll back; others write auto-committed, or through a {@code REQUIRES_NEW}
 * inner write whose outer transaction fails. After each round, every row in the table must be found through the
 * guarded repository methods ({@code findAllById} and {@code findById} with {@code @BloomGuarded}) on every instance;
 * at the end, after one rebuild that goes through, every filter is {@code READY} and lets through at most 1.3·ε of
 * absent keys.
 *
 * <p>Each step kind is named ({@link Step}) so that a failure says which overlap lost the row:
 * {@code -Dbloomguard.overlap.steps=open-tx,flushall} runs only those, {@code -Dbloomguard.overlap.kinds=REDIS_SCALE}
 * only that filter, {@code -Dbloomguard.overlap.seed=...} and {@code -Dbloomguard.overlap.rounds=200} walk further
 * (by default every step that applies to a kind runs once, in a seeded order); {@code -Dbloomguard.overlap.isolate=true}
 * walks each step on its own, on fresh instances, and {@code -Dbloomguard.overlap.keep-going=true} goes on past a
 * round that rejected rows and fails at the end with every such round. Filters' hash seeds are drawn by bloom-guard
 * and cannot be pinned; the walk's own choices (ids, writer styles, instances, step order) are seeded, and it waits
 * for conditions (latches, Awaitility), never for time.
 *
 * <p>One writer of each round saves with a reactive repository's {@code saveAll} in a reactive (R2DBC) transaction,
 * held open across the step when the step holds transactions that put.
 */
@Timeout(900)
@ExtendWith(RedisServerExtension.class)
class OverlapWalkIT {

    private static final long SEED = Long.getLong("bloomguard.overlap.seed", 20261129L);

    /** 0: every step that applies once; more: that many rounds, the steps beyond the first pass drawn at random. */
    private static final int ROUNDS = Integer.getInteger("bloomguard.overlap.rounds", 0);

    /**
     * Whether a walk goes on past rounds that rejected rows (each said once, the walk failing at its end): to see every
     * overlap that loses rows in one run, and how long a whole walk takes.
     */
    private static final boolean KEEP_GOING = Boolean.getBoolean("bloomguard.overlap.keep-going");

    private static final int WRITERS = 4;

    /**
     * Rows committed before the walk: many more than the keys a round holds open, so that a rebuild's read that cannot
     * see them is not held back as short (hold-below) but swapped in, as in production.
     */
    private static final int BASELINE_ROWS = 150;

    private static final int EXPECTED_SIZE = 400;

    private static final double ERROR_RATE = 0.01;

    /**
     * A counting filter's: high, so that a remove landing on a generation that never counted its key (where the key
     * is then a false positive about this often) takes other keys' counts within a few removes.
     */
    private static final double COUNTING_ERROR_RATE = 0.25;

    /** Small, so that a write cut off from Redis loses its key (dropped past the limit) rather than buffering it. */
    private static final int PENDING_ADDS_LIMIT = 3;

    /** Rows a writer saves in a round (an import saves enough to push the filter past its size). */
    private static final int ROWS_PER_WRITER = 6;

    /**
     * How long a step runs beside open transactions before their writers are let go all the same: long enough for
     * every step today (which never waits for them), for a step that would wait for them.
     */
    private static final Duration STEP_ALONE = Duration.ofSeconds(8);

    /** Longest wait for anything the walk waits for: a rebuild, a recovery, a writer. */
    private static final Duration PATIENCE = Duration.ofSeconds(40);

    /** The filters walked. */
    enum Kind {
        LOCAL_PLAIN("local", "bloom", "rebuild", false),
        LOCAL_COUNTING("local", "counting", "rebuild", false),
        LOCAL_SCALE("local", "bloom", "scale", false),
        REDIS_PLAIN("redis", "bloom", "rebuild", false),
        REDIS_COUNTING("redis", "counting", "rebuild", false),
        REDIS_SCALE("redis", "bloom", "scale", false),
        /** Filled by puts alone (no key source): what must not be re-created empty and READY after a loss. */
        REDIS_PUTS_ONLY("redis", "bloom", "scale", true);

        final String backend;
        final String type;
        final String growth;
        final boolean putsOnly;

        Kind(String backend, String type, String growth, boolean putsOnly) {
            this.backend = backend;
            this.type = type;
            this.growth = growth;
            this.putsOnly = putsOnly;
        }

        boolean redis() {
            return backend.equals("redis");
        }

        boolean counting() {
            return type.equals("counting");
        }

        boolean scale() {
            return growth.equals("scale");
        }
    }

    /** What a round does while its writers' transactions are open; named for -Dbloomguard.overlap.steps. */
    enum Step {
        /** A manual rebuild() while transactions that put are open. */
        OPEN_TX("open-tx"),
        /** A scheduled rebuild (rebuild.cron every 2 s) while transactions that put are open. */
        CRON("cron"),
        /** A large import in one transaction pushes the filter past its size: growth from inside it. */
        GROWTH("growth"),
        /** A rebuild whose key source fails, then one that works, while transactions are open. */
        RECOVERY("recovery"),
        /** A confirmRebuild() refused while another rebuild runs, then a short read on that instance. */
        CONFIRM("confirm"),
        /**
         * Writes that lose their keys, their transactions open until the filter recovered: rows whose
         * {@code @BloomPut} key comes out {@code null} or unusable, and on redis also keys that cannot reach Redis
         * (their instance cut off, past pending-adds-limit).
         */
        LOST_KEY("lost-key"),
        /** FLUSHALL, Redis staying up; then writes on every instance and a new instance. */
        FLUSHALL("flushall"),
        /** The metadata hash deleted, the bitmaps kept; then writes and a new instance. */
        DEL_META("del-meta"),
        /** The live bitmap deleted, the metadata kept; then writes and a new instance. */
        DEL_BITMAP("del-bitmap"),
        /** The newest layer of a filter that grows by layers deleted; then writes. */
        DEL_LAYER("del-layer"),
        /** FLUSHALL while transactions that put are open, committed after the filter is back. */
        FAULT_TX("fault-tx"),
        /** An instance restarts while transactions are open. */
        RESTART("restart"),
        /**
         * Redis restarts from an RDB file saved before the round's writers put (a restore from an older backup, a
         * failover to a replica that had not received them): the keys they were acknowledged are gone, the bitmap
         * stays, and their transactions are open.
         */
        RESTORE("restore"),
        /** A new instance joins while transactions are open. */
        JOIN("join"),
        /** A delete whose transaction stays open across a rebuild, and one whose remove is held back across it. */
        REMOVE_TX("remove-tx"),
        /** Removes and adds held on an instance cut off from Redis and re-sent after a rebuild (counting). */
        REMOVE_RESENT("remove-resent"),
        /**
         * A builder that lost its load lock (cut off past lock-ttl) ends while another instance's build, whose read
         * found rows another program inserted meanwhile, waits to swap in.
         */
        STALE_LOCK("stale-lock");

        final String token;

        Step(String token) {
            this.token = token;
        }

        boolean appliesTo(Kind kind) {
            return switch (this) {
                case OPEN_TX, CRON, RECOVERY, CONFIRM -> !kind.putsOnly;
                // (a redis filter that grows by layers reads no key source as it grows, so an open transaction
                // cannot lose a key to it; its layers are walked by del-layer)
                case GROWTH -> !kind.putsOnly && !(kind.redis() && kind.scale());
                case FLUSHALL, DEL_META, DEL_BITMAP, FAULT_TX, RESTART, JOIN, RESTORE -> kind.redis();
                // (a filter filled by puts alone that lost a key cannot recover it: it rightly stays unready)
                case LOST_KEY -> !kind.putsOnly;
                case DEL_LAYER -> kind.redis() && kind.scale();
                case REMOVE_TX -> kind.counting();
                case REMOVE_RESENT -> kind.redis() && kind.counting();
                case STALE_LOCK -> kind.redis() && !kind.putsOnly;
            };
        }

        /**
         * Whether writers' transactions that put stay open across this step. Those that are about something else (a
         * confirmation, a fault, a re-sent remove, a stale lock) run with every write committed before them, so that a
         * failure names their own defect (fault-tx holds transactions across a fault).
         */
        boolean holdsPuts() {
            return switch (this) {
                case OPEN_TX, CRON, GROWTH, RECOVERY, LOST_KEY, FAULT_TX, RESTART, JOIN, RESTORE -> true;
                case CONFIRM, FLUSHALL, DEL_META, DEL_BITMAP, DEL_LAYER, REMOVE_TX, REMOVE_RESENT, STALE_LOCK -> false;
            };
        }

        /** Steps after which a filter filled by puts alone may wait for a confirmation that the walk cannot give. */
        boolean losesStore() {
            return this == FLUSHALL || this == DEL_META || this == DEL_BITMAP || this == DEL_LAYER
                    || this == FAULT_TX;
        }
    }

    /** How a writer writes in a round. */
    enum Style {
        /** Saves, then holds its transaction open across the step, then commits. */
        HELD_COMMIT,
        /** Saves, then holds its transaction open across the step, then rolls back. */
        HELD_ROLLBACK,
        /** Saves each row in a transaction of its own (save's), before the step. */
        AUTO_COMMIT,
        /** Saves a row, saves others in a REQUIRES_NEW transaction that commits, holds, then fails the outer one. */
        REQUIRES_NEW_THEN_FAIL,
        /** Saves enough rows to push the filter past its size in one transaction, holds it, commits. */
        IMPORT,
        /** Deletes existing rows in one transaction held across the step, then commits (counting). */
        HELD_DELETE,
        /** Deletes existing rows and commits; the removes that follow the commit are held back across the step. */
        DELAYED_REMOVE,
        /**
         * Saves with a reactive repository's {@code saveAll} in a reactive transaction; holds it open across the step
         * when the step holds puts (else commits before it), then commits.
         */
        REACTIVE_SAVE_ALL,
        /** Writes a row whose {@code @BloomPut} key is of a type no filter takes, and saves others; holds, commits. */
        HELD_UNKEYED,
        /**
         * Writes a row whose {@code @BloomPut} key comes out {@code null} (known once its transaction commits, before
         * the step), and saves others auto-committed.
         */
        NULL_KEY_COMMITTED
    }

    private static RedisServerProcess redis;

    private final List<Instance> instances = Collections.synchronizedList(new ArrayList<>());

    /**
     * Instances restarted during a round, closed once the round's writers have ended: a shutdown lets the work under
     * way finish first (Spring Boot's graceful shutdown), and a transaction of a closed instance commits nowhere.
     */
    private final List<Instance> closing = Collections.synchronizedList(new ArrayList<>());

    /** What happened to each id, and in which round: said for each row rejected. */
    private final Map<Long, List<String>> events = new ConcurrentHashMap<>();

    private final Deque<String> trail = new ArrayDeque<>();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private @Nullable FreezableTcpProxy proxy;

    private @Nullable Connection keepDatabase;

    private Kind kind;

    private String database;

    private String prefix;

    private Set<Step> steps;

    private int round;

    private final Set<Long> used = new HashSet<>();

    /** With keep-going: rows already reported rejected, and what each round that rejected new ones said. */
    private final Set<Long> reported = new HashSet<>();

    private final List<String> violations = new ArrayList<>();

    /** Rows a delete was planned for: no two deletes wait for each other's row locks. */
    private final Set<Long> claimed = new HashSet<>();

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @AfterEach
    void close() throws SQLException {
        OverlapApplication.SOURCE.set(SourceMode.WHOLE);
        Pause pause = OverlapApplication.PAUSE_NEXT_READ.getAndSet(null);
        if (pause != null) {
            pause.resume().countDown();
        }
        if (proxy != null) {
            proxy.thaw();
        }
        new ArrayList<>(instances).forEach(instance -> instance.context.close());
        new ArrayList<>(closing).forEach(instance -> instance.context.close());
        if (proxy != null) {
            proxy.close();
        }
        threads.shutdownNow();
        if (keepDatabase != null) {
            keepDatabase.close();
        }
    }

    /**
     * The walks: one per kind ({@code -Dbloomguard.overlap.kinds=REDIS_PLAIN,LOCAL_SCALE} names some) over the
     * selected steps; with {@code -Dbloomguard.overlap.isolate=true}, one per kind and step, each on fresh instances,
     * so that each failure names the one overlap that lost rows.
     */
    static Stream<Arguments> walks() {
        String named = System.getProperty("bloomguard.overlap.kinds", "");
        boolean isolate = Boolean.getBoolean("bloomguard.overlap.isolate");
        return Arrays.stream(Kind.values())
                .filter(kind -> named.isBlank() || List.of(named.split(",")).contains(kind.name()))
                .flatMap(kind -> {
                    Set<Step> applying = selectedSteps().stream().filter(step -> step.appliesTo(kind))
                            .collect(Collectors.toCollection(() -> EnumSet.noneOf(Step.class)));
                    return isolate
                            ? applying.stream().map(step -> Arguments.of(kind, EnumSet.of(step)))
                            : Stream.of(Arguments.of(kind, applying));
                });
    }

    /** The steps -Dbloomguard.overlap.steps names (tokens such as open-tx), or all. */
    private static Set<Step> selectedSteps() {
        String named = System.getProperty("bloomguard.overlap.steps", "");
        if (named.isBlank()) {
            return EnumSet.allOf(Step.class);
        }
        Set<Step> selected = EnumSet.noneOf(Step.class);
        for (String token : named.split(",")) {
            selected.add(Arrays.stream(Step.values()).filter(step -> step.token.equals(token.trim())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("bloomguard.overlap.steps: no step '" + token
                            + "'; the steps are " + Arrays.stream(Step.values()).map(step -> step.token).toList())));
        }
        return selected;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("walks")
    void noCommittedRowIsRejectedWhileStepsOverlap(Kind walked, Set<Step> walkedSteps) throws Exception {
        kind = walked;
        steps = walkedSteps;
        database = "jdbc:h2:mem:overlap-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000";
        prefix = "overlap-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        keepDatabase = DriverManager.getConnection(database, "sa", "");
        keepDatabase.createStatement().execute("CREATE TABLE overlap_rows (id BIGINT PRIMARY KEY)");
        if (kind.redis()) {
            proxy = FreezableTcpProxy.start(redis.port());
            instances.add(start(true));
            instances.add(start(false));
        }
        else {
            instances.add(start(false));
        }
        SplittableRandom random = new SplittableRandom(SEED + kind.ordinal());
        List<Long> baseline = newIds(random, BASELINE_ROWS);
        saveOn(instances.get(0), baseline, "saved before the walk");
        List<Step> plan = plan(random);
        Set<Step> ran = EnumSet.noneOf(Step.class);
        long started = System.nanoTime();
        for (round = 0; round < plan.size(); round++) {
            Step step = plan.get(round);
            String what = round(step, random);
            ran.add(step);
            note("round " + round + " " + step.token + ": " + what);
            assertNoRowRejected("round " + round + " (" + step.token + ")", random);
        }
        settle(ran);
        assertNoRowRejected("the end", null);
        assertThat(violations).as("rows rejected along the walk (-Dbloomguard.overlap.keep-going)").isEmpty();
        System.out.printf("OverlapWalkIT %s seed %d: %d rounds (%s) in %d s; last rounds:%n  %s%n", kind, SEED,
                plan.size(), plan.stream().map(step -> step.token).collect(Collectors.joining(",")),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), String.join("\n  ", trail));
    }

    /** Every step that applies once in a seeded order, then random ones up to -Dbloomguard.overlap.rounds. */
    private List<Step> plan(SplittableRandom random) {
        List<Step> plan = new ArrayList<>(steps);
        for (int i = plan.size() - 1; i > 0; i--) {
            Collections.swap(plan, i, random.nextInt(i + 1));
        }
        List<Step> each = List.copyOf(plan);
        int rounds = (each.size() == 1) ? Math.max(ROUNDS, 2) : ROUNDS; // a step walked alone: twice
        while (!each.isEmpty() && plan.size() < rounds) {
            plan.add(each.get(random.nextInt(each.size())));
        }
        return plan;
    }

    // ---------------------------------------------------------------------------------------------- one round

    /** One round: writers put and hold, the step runs, writers end; returns what the step did. */
    private String round(Step step, SplittableRandom random) throws Exception {
        if (step == Step.GROWTH) {
            prefill(random, 0.7);
        }
        if (step == Step.REMOVE_TX || step == Step.REMOVE_RESENT) {
            prefill(random, 0.85);
        }
        if (step == Step.RESTORE) {
            redis.command("SAVE"); // the file the server restarts from: older than every key this round puts
        }
        List<Writer> writers = writers(step, random);
        CountDownLatch putDone = new CountDownLatch(writers.size());
        CountDownLatch release = new CountDownLatch(1);
        if (step == Step.LOST_KEY && kind.redis()) {
            proxy().freeze(); // the first writer's instance cannot reach Redis while it saves
        }
        List<Future<?>> running = new ArrayList<>();
        for (Writer writer : writers) {
            running.add(threads.submit(() -> writer.run(putDone, release)));
        }
        assertThat(putDone.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("writers put their keys").isTrue();
        // The step runs beside the open transactions. A fix may make it wait for them (a rebuild that waits for the
        // transactions that put before it began): then the writers are released after STEP_ALONE and it goes on.
        Future<String> action = threads.submit(() -> during(step, random));
        String what;
        try {
            try {
                await("the step, beside the open transactions").atMost(STEP_ALONE)
                        .pollInterval(Duration.ofMillis(50)).until(action::isDone);
            }
            catch (ConditionTimeoutException waitsForWriters) {
                note("round " + round + " " + step.token + ": waited for the open transactions; writers released");
            }
            release.countDown();
            what = action.get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS);
        }
        catch (ExecutionException failed) {
            if (failed.getCause() instanceof Error error) {
                throw error;
            }
            throw (failed.getCause() instanceof Exception cause) ? cause : failed;
        }
        finally {
            release.countDown();
            if (proxy != null) {
                proxy.thaw();
            }
            OverlapApplication.SOURCE.set(SourceMode.WHOLE);
        }
        for (Future<?> writer : running) {
            writer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        List.copyOf(closing).forEach(instance -> instance.context.close());
        closing.clear();
        afterwards(step);
        return what + "; writers: " + writers.stream().map(Writer::toString).collect(Collectors.joining(", "));
    }

    private List<Writer> writers(Step step, SplittableRandom random) {
        List<Writer> writers = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            Style style = switch (random.nextInt(10)) {
                case 0, 1, 2, 3 -> Style.HELD_COMMIT;
                case 4 -> Style.HELD_ROLLBACK;
                case 5, 6 -> Style.AUTO_COMMIT;
                default -> Style.REQUIRES_NEW_THEN_FAIL;
            };
            Instance on = instances.get(random.nextInt(instances.size()));
            if (i == 0 && step == Step.GROWTH) {
                style = Style.IMPORT;
            }
            if (i == 0 && step == Step.LOST_KEY && kind.redis()) {
                style = Style.HELD_COMMIT;
                on = instances.get(0); // behind the proxy
            }
            if (i == (kind.redis() ? 2 : 0) && step == Step.LOST_KEY) {
                style = Style.HELD_UNKEYED;
            }
            if (i == 3 && step == Step.LOST_KEY) {
                style = Style.NULL_KEY_COMMITTED; // its loss, marked before the step, must not hide the held one's
            }
            if (i == 1) {
                style = Style.REACTIVE_SAVE_ALL;
            }
            if ((!step.holdsPuts() || (step == Step.LOST_KEY && i > 0)) && style == Style.HELD_COMMIT) {
                style = Style.AUTO_COMMIT; // nothing that put stays open across it: a failure is the step's own
            }
            if (i >= WRITERS - 2 && kind.counting() && step == Step.REMOVE_TX) {
                style = (i == WRITERS - 1) ? Style.DELAYED_REMOVE : Style.HELD_DELETE;
            }
            int rows = (style == Style.IMPORT) ? importSize(on) : ROWS_PER_WRITER;
            List<Long> ids = (style == Style.HELD_DELETE || style == Style.DELAYED_REMOVE) ? pickExisting(random, 20)
                    : newIds(random, rows);
            boolean held = step.holdsPuts() && !(step == Step.LOST_KEY && i > 0);
            writers.add(new Writer(i, style, on, ids, held));
        }
        return writers;
    }

    /**
     * Enough rows to take the filter past its growth threshold from inside one transaction, but fewer than the rows
     * already committed: the growth rebuild's read is then not held back as short (hold-below), it swaps in.
     */
    private int importSize(Instance on) {
        long capacity = on.filter().capacity();
        long pastCapacity = capacity - on.filter().approximateElementCount() + capacity / 4;
        return (int) Math.min(3_000, kind.scale() ? Math.max(pastCapacity, capacity) : capacity / 2);
    }

    /**
     * Commits rows until the filter holds about {@code share} of its capacity: 70% so that an import sets growth off;
     * 85% so that a remove landing where its key was never counted finds it a false positive often.
     */
    private void prefill(SplittableRandom random, double share) {
        Instance on = instances.get(0);
        long missing = (long) (share * on.filter().capacity()) - on.filter().approximateElementCount();
        if (missing > 0) {
            List<Long> ids = newIds(random, (int) Math.min(3_000, missing));
            on.transactions(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
                ids.forEach(id -> on.rows().save(new OverlapRow(id)));
                on.rows().flush();
            });
            ids.forEach(id -> event(id, "saved on " + on + " before the import, committed"));
        }
        capacityBefore = on.filter().capacity();
        rebuildsBefore = OverlapApplication.READS.get();
        layersBefore = kind.redis() ? layers().size() : 0;
    }

    private int layersBefore;

    private long capacityBefore;

    private long rebuildsBefore;

    /** What the step does while the writers' transactions are open (or, for faults, after they put). */
    private String during(Step step, SplittableRandom random) throws Exception {
        return switch (step) {
            case OPEN_TX -> rebuildThrough(any(random), "manual rebuild");
            case CRON -> scheduledRebuild();
            case GROWTH -> growth();
            case RECOVERY -> recovery(random);
            case CONFIRM -> confirm(random);
            case LOST_KEY -> lostKey();
            case FLUSHALL, FAULT_TX -> flushAll(random);
            case DEL_META -> deleteMetadata(random);
            case DEL_BITMAP -> deleteBitmap(random);
            case DEL_LAYER -> deleteLayer(random);
            case RESTART -> restart(random);
            case RESTORE -> restore(random);
            case JOIN -> join(random);
            case REMOVE_TX -> rebuildThrough(any(random), "rebuild across open deletes");
            case REMOVE_RESENT -> removeResent(random);
            case STALE_LOCK -> staleLock(random);
        };
    }

    /** After the writers ended: the filter back where it can be checked. */
    private void afterwards(Step step) {
        putsOnlyLost |= step.losesStore() && kind.putsOnly;
        if (step.losesStore() || step == Step.LOST_KEY || step == Step.RESTART || step == Step.JOIN
                || step == Step.REMOVE_RESENT || step == Step.STALE_LOCK) {
            awaitReady(putsOnlyLost);
        }
    }

    /** A filter filled by puts alone lost its store: it waits for an operator's confirmation from then on. */
    private boolean putsOnlyLost;

    // ---------------------------------------------------------------------------------------------- the steps

    private String scheduledRebuild() {
        Instant mark = Instant.now();
        await("a scheduled rebuild that starts after the writers put").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100)).until(() -> instances.stream().anyMatch(instance -> {
                    FilterHistory.Load last = instance.filter().history().lastRebuild();
                    return last != null && last.succeeded() && last.started().isAfter(mark);
                }));
        return "a scheduled rebuild ran";
    }

    /** Growth set off by the import has ended: the filter grew (a rebuild or a layer), or its rebuild was held. */
    private String growth() {
        await("growth set off by the import, ended").atMost(PATIENCE).pollInterval(Duration.ofMillis(100))
                .until(() -> kind.scale() && kind.redis()
                        ? layers().size() > layersBefore || instances.get(0).filter().capacity() > capacityBefore
                        : instances.stream().noneMatch(instance -> instance.filter().growing())
                        && instances.stream().anyMatch(instance -> instance.filter().capacity() > capacityBefore
                                || instance.filter().heldRebuild() != null)
                        && (kind.scale() || OverlapApplication.READS.get() > rebuildsBefore));
        NamedBloomFilter filter = instances.get(0).filter();
        return "growth ended with the import open: capacity " + capacityBefore + " -> " + filter.capacity()
                + (filter.heldRebuild() != null ? ", rebuild held back: " + filter.heldRebuild() : "");
    }

    private String recovery(SplittableRandom random) {
        Instance on = any(random);
        OverlapApplication.SOURCE.set(SourceMode.FAILING);
        String failed = tryRebuild(on);
        OverlapApplication.SOURCE.set(SourceMode.WHOLE);
        return "rebuild with the source down: " + failed + "; then " + rebuildThrough(any(random), "recovery");
    }

    /**
     * A confirmation asked while another rebuild runs (one that then fails), refused; then a rebuild on that instance
     * reads far too few keys: it must be held back, the refused confirmation counts for nothing.
     */
    private String confirm(SplittableRandom random) throws Exception {
        Instance building = instances.get(0);
        Instance confirming = any(random);
        Pause pause = pause(building, true); // a rebuild that then fails: nothing swapped in meanwhile
        Future<String> slow = threads.submit(() -> tryRebuild(building));
        awaitLatch(pause.reading(), "a rebuild reading its key source");
        String confirmation;
        try {
            confirming.filter().confirmRebuild();
            confirmation = "confirmRebuild() went through while a rebuild ran";
        }
        catch (IllegalStateException refused) {
            confirmation = "confirmRebuild() refused: " + refused.getMessage();
        }
        pause.resume().countDown();
        slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        OverlapApplication.SOURCE.set(SourceMode.SHORT);
        String shortRead = await("the short rebuild held back or swapped in").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    try {
                        confirming.filter().rebuild();
                        return "SHORT READ SWAPPED IN without hold-below";
                    }
                    catch (RebuildRefusedException held) {
                        return "short read held back";
                    }
                    catch (IllegalStateException underWay) {
                        return null;
                    }
                }, Objects::nonNull);
        OverlapApplication.SOURCE.set(SourceMode.WHOLE);
        note("round " + round + " confirm: " + confirmation + "; " + shortRead + " on " + confirming);
        assertNoRowRejected("round " + round + " (confirm): a short rebuild after a refused confirmation", null);
        String confirmed = await("a confirmation that goes through").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    try {
                        return "confirmed " + confirming.filter().confirmRebuild() + " keys";
                    }
                    catch (RebuildRefusedException refused) {
                        return "confirmation refused: " + refused.getMessage();
                    }
                    catch (IllegalStateException underWay) {
                        return null;
                    }
                }, Objects::nonNull);
        return confirmation + "; " + shortRead + " on " + confirming + "; then " + confirmed;
    }

    /** The first writer saved while its instance was cut off; it commits once the filter is back. */
    private String lostKey() {
        if (kind.redis()) {
            proxy().thaw();
        }
        // A filter that lost keys inside open transactions waits for them to end (it is ready once they committed,
        // afterwards): a few seconds in which one that does not wait is ready first, then the writers go on.
        awaitReady(true);
        return "keys lost" + (kind.redis() ? " (one cut off from Redis on " + instances.get(0) + ", one null)" : "")
                + ", their transactions open until the filter recovered";
    }

    private String flushAll(SplittableRandom random) {
        redis.command("FLUSHALL");
        saveOnEach(random, "after FLUSHALL");
        return "FLUSHALL; " + restart(random);
    }

    private String deleteMetadata(SplittableRandom random) {
        String meta = prefix + "{overlap}:meta";
        redis.command("DEL", meta);
        saveOnEach(random, "after the metadata was deleted");
        return "DEL " + meta + "; " + restart(random);
    }

    private String deleteBitmap(SplittableRandom random) {
        List<String> bitmaps = keys().stream().filter(key -> key.contains(":bits:") && !key.contains(":layer"))
                .toList();
        bitmaps.forEach(key -> redis.command("DEL", key));
        saveOnEach(random, "after the bitmap was deleted");
        return "DEL " + bitmaps + "; " + restart(random);
    }

    private String deleteLayer(SplittableRandom random) {
        if (putsOnlyLost) {
            // It waits for an operator to create it again empty, and takes no layer until then: nothing to delete.
            return "none deleted: the filter filled by puts alone lost its store earlier and waits for confirmation";
        }
        if (layers().isEmpty()) {
            Instance on = any(random);
            List<Long> ids = newIds(random, importSize(on));
            on.transactions(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(status -> {
                ids.forEach(id -> on.rows().save(new OverlapRow(id)));
                on.rows().flush();
            });
            ids.forEach(id -> event(id, "saved on " + on + " to add a layer"));
            await("a layer added").atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
                saveOn(on, newIds(random, 50), "saved on " + on + " to add a layer");
                return !layers().isEmpty();
            });
        }
        List<String> layers = layers();
        String newest = layers.get(layers.size() - 1);
        redis.command("DEL", newest);
        saveOnEach(random, "after the newest layer was deleted");
        return "DEL " + newest + " (of " + layers.size() + " layers)";
    }

    private String restore(SplittableRandom random) {
        redis.restart(); // loads the file saved before the round's writers put
        saveOnEach(random, "after Redis restarted from an older file");
        return "Redis restarted from a file saved before the round";
    }

    private String restart(SplittableRandom random) {
        int at = 1 + random.nextInt(instances.size() - 1); // the instance behind the proxy stays
        Instance old = instances.get(at);
        closing.add(old); // once its writers' transactions have ended
        Instance fresh = start(false);
        instances.set(at, fresh);
        return old + " restarted as " + fresh;
    }

    private String join(SplittableRandom random) {
        if (instances.size() >= 3) {
            return restart(random);
        }
        Instance joined = start(false);
        instances.add(joined);
        return joined + " joined";
    }

    /**
     * The instance behind the proxy deletes rows and saves new ones, cut off from Redis (its removes and adds wait
     * to be re-sent); another instance deletes what it saved and rebuilds; then the first reaches Redis again.
     */
    private String removeResent(SplittableRandom random) {
        Instance cut = instances.get(0);
        Instance other = instances.get(1);
        List<Long> deleted = pickExisting(random, 6);
        List<Long> saved = newIds(random, 3);
        proxy().freeze();
        for (long id : deleted) {
            cut.deletions().delete(id);
            event(id, "deleted on " + cut + " cut off from Redis (remove held)");
        }
        for (long id : saved) {
            cut.rows().save(new OverlapRow(id));
            event(id, "saved on " + cut + " cut off from Redis (add held)");
        }
        for (long id : saved) {
            other.deletions().delete(id);
            event(id, "deleted on " + other + " while its add was held on " + cut);
        }
        String rebuilt = rebuildThrough(other, "rebuild while removes are held");
        proxy().thaw();
        return "removes of " + deleted + " and adds of " + saved + " held on " + cut + ", " + rebuilt + ", re-sent";
    }

    /**
     * The instance behind the proxy reads its key source for a rebuild and is cut off past lock-ttl; another
     * instance rebuilds and writes meanwhile; then the first finishes its build.
     */
    private String staleLock(SplittableRandom random) throws Exception {
        Instance stale = instances.get(0);
        Instance other = instances.get(1);
        Pause stalePause = pause(stale, false);
        Future<String> slow = threads.submit(() -> tryRebuild(stale));
        awaitLatch(stalePause.reading(), "a rebuild on " + stale + " reading its key source");
        proxy().freeze();
        String lock = prefix + "{overlap}:lock";
        await("the load lock expired").atMost(PATIENCE).pollInterval(Duration.ofMillis(100))
                .until(() -> "0".equals(redis.command("EXISTS", lock)));
        saveOn(other, newIds(random, 10), "saved while " + stale + " held an expired lock");
        // Rows only a read of the key source finds: the later build's read has them, the stale one's does not.
        insertBehindTheGuard(newIds(random, 10), "inserted by another program while " + stale
                + " held an expired lock, before " + other + " rebuilt");
        // The later build takes the lock and reads, then waits while the stale one tries to finish first.
        Pause laterPause = pause(other, false);
        Future<String> later = threads.submit(() -> rebuildThrough(other, "rebuild by another instance"));
        awaitLatch(laterPause.reading(), "a rebuild on " + other + " reading its key source");
        saveOn(other, newIds(random, 10), "saved while both builds ran");
        proxy().thaw();
        // Back once a key it adds now reaches Redis (its circuit breaker closed, what it held replayed).
        long probe = newIds(random, 1).get(0);
        saveOn(stale, List.of(probe), "saved on " + stale + " once it reached Redis again");
        await(stale + " reaching Redis again").atMost(PATIENCE).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> other.filter().backendMightContain(probe));
        stalePause.resume().countDown();
        String outcome = slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        laterPause.resume().countDown();
        String rebuilt = later.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        return "a build on " + stale + " outlived its lock and ended while " + other + "'s ran: " + outcome + "; then "
                + rebuilt;
    }

    // ---------------------------------------------------------------------------------------------- helpers

    /**
     * Retries a rebuild until one runs (another under way, or Redis still settling): swapped in, or held back as
     * short (a transaction's keys the read cannot see may be most of the filter's, which hold-below keeps).
     */
    private String rebuildThrough(Instance on, String what) {
        return what + " on " + on + ": " + await(what + " that runs").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    try {
                        return "read " + on.filter().rebuild() + " keys, swapped in";
                    }
                    catch (RebuildRefusedException held) {
                        return "held back: " + held.getMessage();
                    }
                    catch (RuntimeException notNow) { // another under way, Redis unreachable for a moment
                        return null;
                    }
                }, Objects::nonNull);
    }

    private static String tryRebuild(Instance on) {
        try {
            return "read " + on.filter().rebuild() + " keys on " + on;
        }
        catch (RuntimeException ex) {
            return ex.getClass().getSimpleName() + " on " + on + ": " + ex.getMessage();
        }
    }

    /** The next key-source read on {@code on} waits after reading the table. */
    private static Pause pause(Instance on, boolean failAfter) {
        Pause pause = Pause.on(on.name, failAfter);
        OverlapApplication.PAUSE_NEXT_READ.set(pause);
        return pause;
    }

    private static void awaitLatch(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as(what).isTrue();
    }

    /**
     * Every instance's filter READY and trusted again; for a filter filled by puts alone after it lost its store,
     * it may rightly wait for a confirmation, so the walk goes on either way.
     */
    private void awaitReady(boolean mayWait) {
        try {
            await("every instance ready").atMost(mayWait ? Duration.ofSeconds(5) : PATIENCE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> instances.stream().allMatch(instance -> instance.filter().trustedToReject()));
        }
        catch (ConditionTimeoutException notReady) {
            if (!mayWait) {
                throw notReady;
            }
        }
    }

    private void saveOnEach(SplittableRandom random, String what) {
        for (Instance on : List.copyOf(instances)) {
            saveOn(on, newIds(random, 10), "saved on " + on + " " + what);
        }
    }

    private void saveOn(Instance on, List<Long> ids, String what) {
        for (long id : ids) {
            on.rows().save(new OverlapRow(id));
            event(id, what);
        }
    }

    /** Inserts rows as another program would, with no put: only a rebuild's read of the table finds them. */
    private void insertBehindTheGuard(List<Long> ids, String what) throws SQLException {
        Connection connection = Objects.requireNonNull(keepDatabase);
        try (var insert = connection.prepareStatement("INSERT INTO overlap_rows (id) VALUES (?)")) {
            for (long id : ids) {
                insert.setLong(1, id);
                insert.executeUpdate();
                event(id, what);
            }
        }
    }

    private List<String> keys() {
        String answer = redis.command("KEYS", prefix + "*");
        return (answer == null || answer.isBlank()) ? List.of() : List.of(answer.split("\n"));
    }

    /** The layer keys (1 and up), oldest first. */
    private List<String> layers() {
        return keys().stream().filter(key -> key.contains(":layer"))
                .sorted((a, b) -> Integer.compare(layerOf(a), layerOf(b))).toList();
    }

    private static int layerOf(String key) {
        return Integer.parseInt(key.substring(key.lastIndexOf(":layer") + ":layer".length()));
    }

    private Instance any(SplittableRandom random) {
        return instances.get(random.nextInt(instances.size()));
    }

    private FreezableTcpProxy proxy() {
        if (proxy == null) {
            throw new IllegalStateException("only redis kinds have a proxy");
        }
        return proxy;
    }

    private List<Long> newIds(SplittableRandom random, int count) {
        List<Long> ids = new ArrayList<>(count);
        while (ids.size() < count) {
            long id = 1 + random.nextLong(1L << 40);
            if (used.add(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    /** Rows in the table (in a fixed order, for the seed), none picked twice. */
    private List<Long> pickExisting(SplittableRandom random, int count) {
        List<Long> existing = new ArrayList<>(tableIds());
        Collections.sort(existing);
        existing.removeAll(claimed);
        List<Long> picked = new ArrayList<>();
        while (picked.size() < count && !existing.isEmpty()) {
            picked.add(existing.remove(random.nextInt(existing.size())));
        }
        claimed.addAll(picked);
        return picked;
    }

    private List<Long> tableIds() {
        try (var statement = keepDatabase.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id FROM overlap_rows")) {
            List<Long> ids = new ArrayList<>();
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
            return ids;
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private void event(long id, String what) {
        events.computeIfAbsent(id, unused -> Collections.synchronizedList(new ArrayList<>()))
                .add("round " + round + ": " + what);
    }

    private synchronized void note(String what) {
        trail.addLast(what);
        if (trail.size() > 8) {
            trail.removeFirst();
        }
    }

    // ---------------------------------------------------------------------------------------------- the oracle

    /**
     * Every row in the table (all of them return to their writers before a check) is found through the guarded
     * {@code findAllById} on every instance, and a sample of them through the guarded {@code findById}.
     */
    private void assertNoRowRejected(String after, @Nullable SplittableRandom sample) {
        List<Long> rows = tableIds();
        for (Instance instance : List.copyOf(instances)) {
            Set<Long> found = new HashSet<>();
            for (int from = 0; from < rows.size(); from += 500) {
                instance.rows().findAllById(rows.subList(from, Math.min(rows.size(), from + 500)))
                        .forEach(row -> found.add(row.getId()));
            }
            List<Long> rejected = rows.stream().filter(id -> !found.contains(id)).toList();
            if (sample != null && !rows.isEmpty()) {
                for (int i = 0; i < 30; i++) {
                    long id = rows.get(sample.nextInt(rows.size()));
                    if (instance.rows().findById(id).isEmpty() && !rejected.contains(id)) {
                        rejected = Stream.concat(rejected.stream(), Stream.of(id)).toList();
                    }
                }
            }
            if (KEEP_GOING) {
                rejected = rejected.stream().filter(reported::add).toList(); // each lost row said once
                if (rejected.isEmpty()) {
                    continue;
                }
            }
            String message = String.format("%s, %s, %s: %d of %d committed rows rejected by the guard after %s;%n"
                            + "rejected rows and what happened to them:%n%s%nlast rounds:%n%s%ninstances: %s", kind,
                    instance, instance.filter().state(), rejected.size(), rows.size(), after,
                    rejected.stream().limit(8).map(id -> "  " + id + " " + events.get(id))
                            .collect(Collectors.joining("\n")),
                    String.join("\n", trail),
                    instances.stream().map(each -> each + " " + each.filter().state() + " "
                            + each.filter().backend()).toList());
            if (KEEP_GOING) {
                violations.add(message);
                System.out.println("OverlapWalkIT violation: " + message);
            }
            else {
                assertThat(rejected).as(message).isEmpty();
            }
        }
    }

    /**
     * Ends the walk as an operator would: the key source whole, one rebuild that goes through, every instance ready
     * and grown past the rows; then absent keys are let through at most 1.3·ε. A filter filled by puts alone cannot
     * be rebuilt: it is only waited for, and after it lost its store it may rightly stay unready (then not checked).
     */
    private void settle(Set<Step> ran) {
        OverlapApplication.SOURCE.set(SourceMode.WHOLE);
        boolean mayWait = kind.putsOnly && ran.stream().anyMatch(Step::losesStore);
        if (!kind.putsOnly && rebuildThrough(instances.get(0), "settling rebuild").contains("held back")) {
            instances.get(0).filter().confirmRebuild(); // the table is whole: the operator confirms it
        }
        awaitReady(mayWait);
        int rows = tableIds().size();
        if (mayWait) {
            return; // re-created after a loss (or waiting for a confirmation): sized for the keys put since
        }
        await("every instance ready, grown past the rows").atMost(PATIENCE).untilAsserted(() -> assertThat(instances
                .stream().map(Instance::filter).map(filter -> filter.state() + (filter.growing() ? ", growing" : "")
                        + ", capacity " + filter.capacity() + " for " + rows + " rows; " + filter.backend())
                .toList()).as("every instance").allMatch(each -> each.startsWith("READY, capacity ")
                        && Long.parseLong(each.split(" ")[2]) > rows));
        for (Instance instance : List.copyOf(instances)) {
            await("absent keys rejected on " + instance).atMost(PATIENCE).untilAsserted(() ->
                    assertThat(absentShare(instance)).as("%s, %s: share of absent keys let through at the end", kind,
                            instance).isLessThanOrEqualTo(1.3 * errorRate()));
        }
    }

    /** Share of 20,000 ids never created (negative) that the guarded findAllById sends to the database. */
    private double absentShare(Instance instance) {
        SplittableRandom random = new SplittableRandom(SEED);
        int probes = 20_000;
        long before = OverlapStatements.IDS_QUERIED.get();
        List<Long> ids = new ArrayList<>(1_000);
        for (int i = 0; i < probes; i++) {
            ids.add(-1 - random.nextLong(1L << 40));
            if (ids.size() == 1_000) {
                assertThat(instance.rows().findAllById(ids)).as("absent rows found").isEmpty();
                ids.clear();
            }
        }
        return (double) (OverlapStatements.IDS_QUERIED.get() - before) / probes;
    }

    private double errorRate() {
        return kind.counting() ? COUNTING_ERROR_RATE : ERROR_RATE;
    }

    // ---------------------------------------------------------------------------------------------- instances

    private Instance start(boolean behindProxy) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.datasource.url", database);
        properties.put("overlap.r2dbc-url", database.replace("jdbc:h2:mem:", "r2dbc:h2:mem:///")
                .replaceFirst(";", "?options="));
        properties.put("spring.jpa.hibernate.ddl-auto", "none");
        properties.put("spring.jpa.open-in-view", "false");
        properties.put("spring.jpa.properties.hibernate.session_factory.statement_inspector",
                OverlapStatements.class.getName());
        properties.put("spring.data.redis.host", "127.0.0.1");
        properties.put("spring.data.redis.port", Integer.toString(behindProxy ? proxy().port() : redis.port()));
        properties.put("bloom-guard.redis.key-prefix", prefix);
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "100ms");
        properties.put("bloom-guard.redis.lock-ttl", "2s");
        properties.put("bloom-guard.redis.check-timeout", "2s"); // the walk's own checks, on a busy machine
        properties.put("bloom-guard.redis.command-timeout", "1s");
        properties.put("bloom-guard.filters.overlap.backend", kind.backend);
        properties.put("bloom-guard.filters.overlap.type", kind.type);
        properties.put("bloom-guard.filters.overlap.growth", kind.growth);
        properties.put("bloom-guard.filters.overlap.puts-only", Boolean.toString(kind.putsOnly));
        properties.put("bloom-guard.filters.overlap.expected-size", EXPECTED_SIZE);
        properties.put("bloom-guard.filters.overlap.error-rate", errorRate());
        properties.put("bloom-guard.redis.pending-adds-limit", PENDING_ADDS_LIMIT);
        properties.put("bloom-guard.filters.overlap.rebuild.hold-below", 0.5);
        if (steps.contains(Step.CRON)) {
            properties.put("bloom-guard.filters.overlap.rebuild.cron", "*/2 * * * * *");
        }
        String name = "instance " + (++started) + (behindProxy ? " (behind the proxy)" : "");
        properties.put("overlap.instance", name);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(OverlapApplication.class)
                .web(WebApplicationType.NONE).properties(properties).run();
        return new Instance(context, name);
    }

    private int started;

    /** One running application. */
    private static final class Instance {

        final ConfigurableApplicationContext context;
        final String name;

        Instance(ConfigurableApplicationContext context, String name) {
            this.context = context;
            this.name = name;
        }

        NamedBloomFilter filter() {
            return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class,
                    "overlap");
        }

        OverlapRows rows() {
            return context.getBean(OverlapRows.class);
        }

        ReactiveOverlapRows reactiveRows() {
            return context.getBean(ReactiveOverlapRows.class);
        }

        TransactionalOperator reactiveTransactions() {
            return TransactionalOperator.create(
                    new R2dbcTransactionManager(context.getBean(DatabaseClient.class).getConnectionFactory()));
        }

        OverlapApplication.UnkeyedWrites unkeyedWrites() {
            return context.getBean(OverlapApplication.UnkeyedWrites.class);
        }

        OverlapApplication.Deletions deletions() {
            return context.getBean(OverlapApplication.Deletions.class);
        }

        TransactionTemplate transactions(int propagation) {
            TransactionTemplate template = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            template.setPropagationBehavior(propagation);
            return template;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** One writer of a round: its style, instance and ids (rows to save, or to delete). */
    private final class Writer {

        final int index;
        final Style style;
        final Instance on;
        final List<Long> ids;

        /** Whether a reactive writer holds its transaction open across the step. */
        final boolean held;

        Writer(int index, Style style, Instance on, List<Long> ids, boolean held) {
            this.index = index;
            this.style = style;
            this.on = on;
            this.ids = ids;
            this.held = held;
        }

        void run(CountDownLatch putDone, CountDownLatch release) {
            boolean[] signalled = { false };
            Runnable put = () -> {
                if (!signalled[0]) {
                    signalled[0] = true;
                    putDone.countDown();
                }
            };
            try {
                write(put, release);
            }
            finally {
                put.run(); // a writer that failed must not keep the round waiting
            }
        }

        private void write(Runnable put, CountDownLatch release) {
            String held = "held open across round " + round + "'s step on " + on;
            TransactionTemplate outer = on.transactions(TransactionDefinition.PROPAGATION_REQUIRED);
            switch (style) {
                case AUTO_COMMIT -> {
                    saveEach(ids, "auto-committed");
                    put.run();
                    awaitRelease(release);
                }
                case HELD_COMMIT, IMPORT -> {
                    outer.executeWithoutResult(status -> {
                        saveEach(ids, (style == Style.IMPORT ? "imported, " : "saved, ") + held);
                        put.run();
                        awaitRelease(release);
                    });
                    ids.forEach(id -> event(id, "committed"));
                }
                case HELD_ROLLBACK -> outer.executeWithoutResult(status -> {
                    saveEach(ids, "saved, to be rolled back, " + held);
                    put.run();
                    awaitRelease(release);
                    status.setRollbackOnly();
                });
                case REQUIRES_NEW_THEN_FAIL -> {
                    TransactionTemplate inner = on.transactions(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
                    try {
                        outer.executeWithoutResult(status -> {
                            saveEach(ids.subList(0, 1), "saved in an outer transaction that fails, " + held);
                            inner.executeWithoutResult(unused -> saveEach(ids.subList(1, ids.size()),
                                    "saved in a REQUIRES_NEW transaction (committed) inside an outer one that fails"));
                            put.run();
                            awaitRelease(release);
                            throw new OuterFailure();
                        });
                    }
                    catch (OuterFailure expected) {
                        // the outer row is rolled back, the inner ones stay
                    }
                }
                case HELD_DELETE -> {
                    outer.executeWithoutResult(status -> {
                        for (long id : ids) {
                            on.deletions().delete(id);
                            event(id, "deleted, " + held);
                        }
                        put.run();
                        awaitRelease(release);
                    });
                    ids.forEach(id -> event(id, "delete committed"));
                }
                case HELD_UNKEYED -> {
                    outer.executeWithoutResult(status -> {
                        on.unkeyedWrites().insertWithUnusableKey(ids.get(0));
                        event(ids.get(0), "writer " + index + ": written by a @BloomPut whose key is a Double, "
                                + held);
                        saveEach(ids.subList(1, ids.size()), "saved beside it, " + held);
                        put.run();
                        awaitRelease(release);
                    });
                    ids.forEach(id -> event(id, "committed"));
                }
                case NULL_KEY_COMMITTED -> {
                    on.unkeyedWrites().insertWithNullKey(ids.get(0));
                    event(ids.get(0), "writer " + index + ": written and committed by a @BloomPut whose key came out"
                            + " null");
                    saveEach(ids.subList(1, ids.size()), "auto-committed");
                    put.run();
                    awaitRelease(release);
                }
                case REACTIVE_SAVE_ALL -> {
                    String how = this.held ? "saved by a reactive saveAll, " + held : "saved by a reactive saveAll";
                    Mono<Void> hold = Mono.<Void>fromRunnable(() -> {
                        ids.forEach(id -> event(id, "writer " + index + ": " + how));
                        put.run();
                        awaitRelease(release);
                    }).subscribeOn(Schedulers.boundedElastic());
                    on.reactiveRows().saveAll(Flux.fromIterable(ids).map(ReactiveOverlapRow::new))
                            .then(this.held ? hold : Mono.empty())
                            .as(on.reactiveTransactions()::transactional)
                            .then(this.held ? Mono.empty() : hold)
                            .block(PATIENCE.multipliedBy(4));
                    ids.forEach(id -> event(id, "committed"));
                }
                case DELAYED_REMOVE -> {
                    outer.executeWithoutResult(status -> {
                        // Registered before the deletes', so it runs first after the commit: their removes wait.
                        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                            @Override
                            public void afterCommit() {
                                ids.forEach(id -> event(id, "deleted and committed, its remove held across round "
                                        + round + "'s step on " + on));
                                put.run();
                                awaitRelease(release);
                            }
                        });
                        ids.forEach(id -> on.deletions().delete(id));
                    });
                    ids.forEach(id -> event(id, "remove sent"));
                }
            }
        }

        private void saveEach(List<Long> each, String what) {
            for (long id : each) {
                on.rows().save(new OverlapRow(id));
            }
            on.rows().flush();
            each.forEach(id -> event(id, "writer " + index + ": " + what));
        }

        private void awaitRelease(CountDownLatch release) {
            try {
                if (!release.await(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("writer " + index + " was never released");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }

        @Override
        public String toString() {
            return style + " of " + ids.size() + " on " + on;
        }
    }

    /** What fails a writer's outer transaction after its REQUIRES_NEW inner one committed. */
    private static final class OuterFailure extends RuntimeException {

        OuterFailure() {
            super("the outer transaction fails after its inner one committed");
        }
    }
}
