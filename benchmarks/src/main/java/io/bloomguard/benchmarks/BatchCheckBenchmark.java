package io.bloomguard.benchmarks;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A batch check of the local backend ({@code mightContainAll} of {@value #BATCH} keys) against the same keys
 * checked one {@code mightContain} at a time, in time per key. Same filters and probes as
 * {@link LocalFilterBenchmark}: 2^20 probes, half present, taken {@value #BATCH} at a time in order.
 *
 * <p>Run: {@code java -Xmx10g -jar benchmarks/target/benchmarks.jar BatchCheckBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class BatchCheckBenchmark {

    static final int BATCH = 1_000;

    private static final int PROBES = 1 << 20;

    @Param({"1000000", "50000000"})
    long n;

    @Param({"LONG", "STRING"})
    BenchmarkKeys keyType;

    private BloomFilter filter;
    private List<Object>[] batches;
    private int next;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void fill() {
        filter = LocalBloomFilter.create(FilterSizing.of(n, LocalFilterBenchmark.FPP), FilterUnderTest.SEED);
        for (long i = 0; i < n; i++) {
            filter.put(keyType.present(i));
        }
        System.gc();
        List<Object> probes = Arrays.asList(keyType.probes(n, PROBES, 0xB0B));
        batches = new List[PROBES / BATCH];
        for (int b = 0; b < batches.length; b++) {
            batches[b] = probes.subList(b * BATCH, (b + 1) * BATCH);
        }
        System.gc();
        for (List<Object> batch : batches) {
            if (!Arrays.equals(filter.mightContainAll(batch), oneByOne(batch))) {
                throw new IllegalStateException("mightContainAll disagrees with mightContain");
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] mightContainAll() {
        return filter.mightContainAll(nextBatch());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] oneByOne() {
        return oneByOne(nextBatch());
    }

    /** What {@code BloomFilter.mightContainAll} does by default: one {@code mightContain} per key. */
    private boolean[] oneByOne(List<Object> batch) {
        boolean[] answers = new boolean[batch.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = filter.mightContain(batch.get(i));
        }
        return answers;
    }

    private List<Object> nextBatch() {
        List<Object> batch = batches[next];
        next = next + 1 == batches.length ? 0 : next + 1;
        return batch;
    }
}
