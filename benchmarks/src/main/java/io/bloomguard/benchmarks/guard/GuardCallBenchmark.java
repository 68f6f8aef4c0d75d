package io.bloomguard.benchmarks.guard;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * What {@code @BloomGuarded} adds to a call through a Spring Data JPA repository proxy, against local filters of
 * 10^6 keys: a call rejected on its single parameter ({@code findById}), a call rejected on a SpEL composite key
 * ({@code #tenant + ':' + #sku}) and a call the filter lets through, each next to its baseline, an unguarded
 * method of the same proxy with the same parameters that returns at once. No measured call reaches the database:
 * a rejection returns before the query, and the passed call and the baselines are default methods. The guard's
 * cost is guarded − baseline. A rejected call also skips the repository proxy's own interceptors, which the
 * baseline runs through, so its difference can be negative; its whole time then bounds what the guard costs.
 *
 * <p>Probes: 4,096 keys per kind, in cache as a key just parsed from a request is; the absent ones are chosen so
 * that the filter rejects every one, and the setup fails unless each call does what its name says.
 *
 * <p>{@code rejectedSingleKeyObserved} is {@code rejectedSingleKey} in a second application that has an
 * {@code ObservationRegistry} ({@link ObservedItems}): {@code registry=meters}, Micrometer's
 * {@code DefaultMeterObservationHandler} over a {@code SimpleMeterRegistry}, which is what Spring Boot gives an
 * application with metrics and no tracing; {@code registry=noop}, {@code ObservationRegistry.NOOP}; and
 * {@code bloom-guard.observations.checks} {@code checks=default} (unset: off), {@code on}, or {@code under-parent}
 * (the benchmark's calls have no parent observation). Compared with {@code rejectedSingleKey}, it is what an
 * observation adds to a rejected call, and what a registry that observes nothing adds.
 *
 * <p>Run {@link #main} for the table of added ns (JMH options pass through, e.g. {@code -f 1} for a short run):
 * {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.guard.GuardCallBenchmark}, or plain
 * JMH: {@code java -jar benchmarks/target/benchmarks.jar GuardCallBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class GuardCallBenchmark {

    static final int PROBES = 4096;

    static final String BASELINE = "Baseline";

    /** The guard's added ns each guarded benchmark aims at. */
    static final Map<String, Double> TARGET_NS = Map.of("rejectedSingleKey", 150.0, "rejectedSpelKey", 500.0,
            "passedSingleKey", 100.0);

    private ConfigurableApplicationContext context;
    private ItemRepository items;
    private final Long[] absentIds = new Long[PROBES];
    private final Long[] presentIds = new Long[PROBES];
    private final String[] absentTenants = new String[PROBES];
    private final String[] absentSkus = new String[PROBES];
    private int next;

    @Setup(Level.Trial)
    public void start() {
        context = GuardedItemsApplication.start();
        items = context.getBean(ItemRepository.class);
        BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
        NamedBloomFilter itemsFilter = ready(registry.get("items"));
        NamedBloomFilter skusFilter = ready(registry.get("skus"));
        SplittableRandom random = new SplittableRandom(0xB0B);
        for (int i = 0; i < PROBES; i++) {
            presentIds[i] = random.nextLong(GuardedItemsApplication.KEYS);
            long absent;
            do {
                absent = random.nextLong(GuardedItemsApplication.KEYS, Long.MAX_VALUE);
            }
            while (itemsFilter.mightContain(absent));
            absentIds[i] = absent;
            do {
                absent = random.nextLong(GuardedItemsApplication.KEYS, Long.MAX_VALUE);
            }
            while (skusFilter.mightContain(GuardedItemsApplication.skuKey(absent)));
            absentTenants[i] = GuardedItemsApplication.tenant(absent);
            absentSkus[i] = GuardedItemsApplication.sku(absent);
        }
        expect(itemsFilter, "findById of absent ids", false,
                i -> items.findById(absentIds[i]).isEmpty());
        expect(skusFilter, "findByTenantAndSku of absent keys", false,
                i -> items.findByTenantAndSku(absentTenants[i], absentSkus[i]).isEmpty());
        expect(itemsFilter, "findPresent of present ids", true,
                i -> items.findPresent(presentIds[i]) == ItemRepository.FOUND);
    }

    private static NamedBloomFilter ready(NamedBloomFilter filter) {
        if (filter.state() != FilterState.READY) {
            throw new IllegalStateException(filter.name() + " is " + filter.state() + " after startup");
        }
        return filter;
    }

    /** Fails unless every probe's call answers as expected and was counted as rejected (or passed) by the guard. */
    private static void expect(NamedBloomFilter filter, String what, boolean passed, IntPredicate call) {
        long before = passed ? filter.stats().passed() : filter.stats().rejected();
        for (int i = 0; i < PROBES; i++) {
            if (!call.test(i)) {
                throw new IllegalStateException(what + ": probe " + i + " answered wrong");
            }
        }
        long counted = (passed ? filter.stats().passed() : filter.stats().rejected()) - before;
        if (counted != PROBES) {
            throw new IllegalStateException(what + ": the guard counted " + counted + " of " + PROBES
                    + (passed ? " as passed" : " as rejected"));
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    /**
     * The application with an {@code ObservationRegistry} ({@code meters}: a meter handler over a
     * {@code SimpleMeterRegistry}; {@code noop}: {@code ObservationRegistry.NOOP}), {@code bloom-guard.observations.checks}
     * as {@link #checks} says, and absent ids of its own filter (its hash seed is its own). The setup fails unless
     * every probe is rejected, and timed exactly when {@code meters} and {@code on}.
     */
    @State(Scope.Benchmark)
    public static class ObservedItems {

        @Param({"meters", "noop"})
        public String registry;

        /** {@code bloom-guard.observations.checks}: {@code default} leaves it unset. */
        @Param({"default", "on", "under-parent"})
        public String checks;

        private ConfigurableApplicationContext context;
        private ItemRepository items;
        private final Long[] absentIds = new Long[PROBES];
        private int next;

        @Setup(Level.Trial)
        public void start() {
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            ObservationRegistry observations = ObservationRegistry.NOOP;
            if (registry.equals("meters")) {
                observations = ObservationRegistry.create();
                observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            }
            context = GuardedItemsApplication.start(observations, checks.equals("default") ? null : checks);
            items = context.getBean(ItemRepository.class);
            NamedBloomFilter itemsFilter = ready(context.getBean(BloomFilterRegistry.class).get("items"));
            SplittableRandom random = new SplittableRandom(0xB0B);
            for (int i = 0; i < PROBES; i++) {
                long absent;
                do {
                    absent = random.nextLong(GuardedItemsApplication.KEYS, Long.MAX_VALUE);
                }
                while (itemsFilter.mightContain(absent));
                absentIds[i] = absent;
            }
            expect(itemsFilter, "findById of absent ids, observed", false, i -> items.findById(absentIds[i]).isEmpty());
            long timed = meters.find("bloomguard.check").tags("filter", "items").timers()
                    .stream().mapToLong(Timer::count).sum();
            if (timed != ((registry.equals("meters") && checks.equals("on")) ? PROBES : 0)) {
                throw new IllegalStateException("registry=" + registry + ", checks=" + checks + ": " + timed
                        + " rejected checks timed");
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            context.close();
        }

        Optional<Item> findAbsent() {
            return items.findById(absentIds[next++ & (PROBES - 1)]);
        }
    }

    private int next() {
        return next++ & (PROBES - 1);
    }

    @Benchmark
    public Optional<Item> rejectedSingleKey() {
        return items.findById(absentIds[next()]);
    }

    @Benchmark
    public Optional<Item> rejectedSingleKeyBaseline() {
        return items.findUnguarded(absentIds[next()]);
    }

    @Benchmark
    public Optional<Item> rejectedSingleKeyObserved(ObservedItems observed) {
        return observed.findAbsent();
    }

    @Benchmark
    public Optional<Item> rejectedSpelKey() {
        int i = next();
        return items.findByTenantAndSku(absentTenants[i], absentSkus[i]);
    }

    @Benchmark
    public Optional<Item> rejectedSpelKeyBaseline() {
        int i = next();
        return items.findUnguarded(absentTenants[i], absentSkus[i]);
    }

    @Benchmark
    public Optional<Item> passedSingleKey() {
        return items.findPresent(presentIds[next()]);
    }

    @Benchmark
    public Optional<Item> passedSingleKeyBaseline() {
        return items.findUnguarded(presentIds[next()]);
    }

    /**
     * Runs the benchmarks and prints, for each guarded call, its time, its baseline's and the difference with its
     * target, then what each observation registry adds to a rejected call. Arguments are JMH options, e.g.
     * {@code -f 1 -wi 2 -i 3} for a short run.
     */
    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        OptionsBuilder options = new OptionsBuilder();
        options.parent(new CommandLineOptions(args)).include(GuardCallBenchmark.class.getName() + "\\.");
        Map<String, Result<?>> results = new LinkedHashMap<>();
        for (RunResult run : new Runner(options.build()).run()) {
            String benchmark = run.getParams().getBenchmark();
            String registry = run.getParams().getParam("registry");
            String checks = run.getParams().getParam("checks");
            results.put(benchmark.substring(benchmark.lastIndexOf('.') + 1) + ((registry != null) ? ":" + registry : "")
                    + ((checks != null) ? ":" + checks : ""), run.getPrimaryResult());
        }
        System.out.println();
        System.out.println("The guard's cost per call (ns/op; ± is JMH's 99.9% interval, the difference's combined)");
        System.out.printf(Locale.ROOT, "%-18s %16s %16s %16s %10s%n", "call", "guarded", "baseline", "guard adds",
                "target");
        results.forEach((name, guarded) -> {
            Result<?> baseline = results.get(name + BASELINE);
            if (name.endsWith(BASELINE) || baseline == null || !TARGET_NS.containsKey(name)) {
                return;
            }
            double added = guarded.getScore() - baseline.getScore();
            double error = Math.hypot(finite(guarded.getScoreError()), finite(baseline.getScoreError()));
            double target = TARGET_NS.get(name);
            System.out.printf(Locale.ROOT, "%-18s %16s %16s %16s %10s%n", name, timed(guarded.getScore(),
                    guarded.getScoreError()), timed(baseline.getScore(), baseline.getScoreError()),
                    timed(added, error), String.format(Locale.ROOT, "≤ %.0f %s", target, added <= target ? "met" : "NOT met"));
        });
        System.out.println("A rejected call returns before the repository proxy's own interceptors (transaction, query"
                + " execution), which the baseline runs through, so it may cost less than its baseline: its whole"
                + " time is then what bounds the guard's cost.");
        Result<?> rejected = results.get("rejectedSingleKey");
        if (rejected != null) {
            System.out.println();
            System.out.println("What an ObservationRegistry adds to a rejected call (ns/op)");
            results.forEach((name, observed) -> {
                if (name.startsWith("rejectedSingleKeyObserved:")) {
                    double added = observed.getScore() - rejected.getScore();
                    double error = Math.hypot(finite(observed.getScoreError()), finite(rejected.getScoreError()));
                    System.out.printf(Locale.ROOT, "%-48s %16s  adds %16s to %s%n", name,
                            timed(observed.getScore(), observed.getScoreError()), timed(added, error),
                            timed(rejected.getScore(), rejected.getScoreError()));
                }
            });
        }
    }

    private static String timed(double score, double error) {
        return Double.isFinite(error) ? String.format(Locale.ROOT, "%.1f ± %.1f", score, error)
                : String.format(Locale.ROOT, "%.1f", score);
    }

    /** JMH reports NaN as the error of a single iteration. */
    private static double finite(double error) {
        return Double.isFinite(error) ? error : 0;
    }
}
