package io.bloomguard.benchmarks.guard;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
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

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A multi-key {@code @BloomGuarded} call (a repository method taking {@value #BATCH} ids, half of which the filter
 * rejects) against the local batch check it is built on ({@code mightContainAll} of the same ids, on the same filter),
 * in time per key. The difference is what pruning adds per key: reading the elements, keeping the ones that might
 * exist in a new list, counting, and the proxy call spread over the batch. The filter is {@link GuardCallBenchmark}'s
 * {@code items} (10^6 keys, ε = 0.01); the method returns at once, so the database is never part of what is measured.
 *
 * <p>Run {@link #main} for the difference (JMH options pass through):
 * {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.guard.PrunedCallBenchmark -f 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class PrunedCallBenchmark {

    static final int BATCH = 1_000;

    private static final int BATCHES = 64;

    /** The most pruning may add to each key, over the batch check's time per key. */
    static final double TARGET_NS_PER_KEY = 30;

    private ConfigurableApplicationContext context;
    private ItemRepository items;
    private NamedBloomFilter itemsFilter;
    private final List<List<Long>> batches = new ArrayList<>();
    private int next;

    @Setup(Level.Trial)
    public void start() {
        context = GuardedItemsApplication.start();
        items = context.getBean(ItemRepository.class);
        itemsFilter = context.getBean(BloomFilterRegistry.class).get("items");
        SplittableRandom random = new SplittableRandom(0xB0B);
        for (int b = 0; b < BATCHES; b++) {
            List<Long> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                long id;
                if (i % 2 == 0) {
                    id = random.nextLong(GuardedItemsApplication.KEYS);
                }
                else {
                    do {
                        id = random.nextLong(GuardedItemsApplication.KEYS, Long.MAX_VALUE);
                    }
                    while (itemsFilter.mightContain(id));
                }
                batch.add(id);
            }
            batches.add(batch);
        }
        long rejectedBefore = itemsFilter.stats().rejected();
        batches.forEach(batch -> items.findAllPresent(batch));
        long rejected = itemsFilter.stats().rejected() - rejectedBefore;
        if (rejected != (long) BATCHES * BATCH / 2) {
            throw new IllegalStateException("the guard dropped " + rejected + " keys, not half of each batch");
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    private List<Long> nextBatch() {
        List<Long> batch = batches.get(next);
        next = (next + 1) % BATCHES;
        return batch;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object prunedCall() {
        return items.findAllPresent(nextBatch());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] batchCheck() {
        return itemsFilter.backendMightContainAll(nextBatch());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object unguardedCall() {
        return items.findAllUnguarded(nextBatch());
    }

    /** Runs the benchmarks and prints what pruning adds per key over the batch check, against the target. */
    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        OptionsBuilder options = new OptionsBuilder();
        options.parent(new CommandLineOptions(args)).include(PrunedCallBenchmark.class.getName() + "\\.");
        Map<String, Result<?>> results = new HashMap<>();
        for (RunResult run : new Runner(options.build()).run()) {
            String benchmark = run.getParams().getBenchmark();
            results.put(benchmark.substring(benchmark.lastIndexOf('.') + 1), run.getPrimaryResult());
        }
        Result<?> pruned = results.get("prunedCall");
        Result<?> check = results.get("batchCheck");
        Result<?> unguarded = results.get("unguardedCall");
        if (pruned == null || check == null) {
            return;
        }
        double added = pruned.getScore() - check.getScore();
        System.out.println();
        System.out.printf(Locale.ROOT, "ns per key: pruned call %.2f, batch check %.2f, unguarded call %.2f%n",
                pruned.getScore(), check.getScore(), (unguarded != null) ? unguarded.getScore() : Double.NaN);
        System.out.printf(Locale.ROOT, "pruning adds %.2f ns per key (target ≤ %.0f: %s)%n", added, TARGET_NS_PER_KEY,
                added <= TARGET_NS_PER_KEY ? "met" : "NOT met");
    }
}
