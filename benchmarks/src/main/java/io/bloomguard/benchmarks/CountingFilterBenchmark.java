package io.bloomguard.benchmarks;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.FilterSnapshot;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * The local counting filter ({@code type: counting}) against the plain local filter, same {@code n}, ε = 1 %: time
 * per check, per put of a new key and per remove, and bytes per key (printed once each trial has filled its filter).
 *
 * <p>Each trial fills the filter its benchmark names ({@code ...Bloom}: {@link LocalBloomFilter}, {@code
 * ...Counting}: {@link LocalCountingFilter}) with {@code n} keys, as {@link LocalFilterBenchmark} does. Each measured
 * invocation is a batch of {@value #BATCH} operations, timed as one and divided by the batch:
 * <ul>
 * <li>{@code check}: {@code mightContain} of the next shuffled probes, half present and half absent (2^20 of them, as
 * in {@link LocalFilterBenchmark});</li>
 * <li>{@code put}: {@code put} of keys never put before; afterwards, outside the clock, the filter is set back to its
 * {@code n} keys (the counting filter by removing them, the plain one from a copy of its bits), so every batch finds
 * the same filter;</li>
 * <li>{@code remove} (counting only): {@code remove} of keys put just before the batch, outside the clock.</li>
 * </ul>
 * Single-threaded.
 *
 * <p>Run: {@code java -Xmx10g -jar benchmarks/target/benchmarks.jar CountingFilterBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 200)
@Measurement(iterations = 400)
@Fork(value = 2, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class CountingFilterBenchmark {

    /** Operations per measured invocation: long enough to time as one (about a millisecond), short enough for many. */
    static final int BATCH = 1 << 14;

    private static final int PROBES = 1 << 20;

    @Param({"1000000", "50000000"})
    long n;

    @Param({"LONG", "STRING"})
    BenchmarkKeys keyType;

    private BloomFilter filter;
    /** The plain filter's bits at {@code n} keys, to set it back after a batch of puts. */
    private FilterSnapshot filled;
    private Object[] probes;
    private int nextProbe;
    private final Object[] batch = new Object[BATCH];
    /** Index of the next absent key a batch takes: every batch's keys are new. */
    private long nextNew;

    @Setup(Level.Trial)
    public void fill(BenchmarkParams params) {
        long start = System.nanoTime();
        FilterSizing sizing = FilterSizing.of(n, LocalFilterBenchmark.FPP);
        boolean counting = params.getBenchmark().endsWith("Counting");
        filter = counting ? LocalCountingFilter.create(sizing, FilterUnderTest.SEED)
                : LocalBloomFilter.create(sizing, FilterUnderTest.SEED);
        for (long i = 0; i < n; i++) {
            filter.put(keyType.present(i));
        }
        if (!counting) {
            filled = ((LocalBloomFilter) filter).exportSnapshot();
        }
        System.gc();
        probes = keyType.probes(n, PROBES, 0xB0B);
        System.gc();
        System.out.printf("%n# filled %s %s n=%d in %.1f s: %.2f bytes/key%n", counting ? "counting" : "bloom", keyType,
                n, (System.nanoTime() - start) / 1e9, (double) filter.byteSize() / n);
    }

    /** The next batch of keys never put; for a remove batch, put now, outside the clock. */
    @Setup(Level.Invocation)
    public void nextBatch(BenchmarkParams params) {
        for (int i = 0; i < BATCH; i++) {
            // Absent keys from the top half of their indexes: the probes' absent keys come from the bottom half.
            batch[i] = keyType.absent(Long.MAX_VALUE / 2 + nextNew++);
        }
        if (params.getBenchmark().endsWith("removeCounting")) {
            for (Object key : batch) {
                filter.put(key);
            }
        }
    }

    /** Sets the filter back to its {@code n} keys after a batch of puts. */
    @TearDown(Level.Invocation)
    public void forgetPuts(BenchmarkParams params) {
        if (params.getBenchmark().endsWith("putCounting")) {
            for (Object key : batch) {
                filter.remove(key);
            }
        }
        else if (params.getBenchmark().endsWith("putBloom")) {
            filter = LocalBloomFilter.fromSnapshot(filled);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int checkBloom() {
        return check();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int checkCounting() {
        return check();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int putBloom() {
        return putBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int putCounting() {
        return putBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int removeCounting() {
        int removed = 0;
        for (Object key : batch) {
            removed += filter.remove(key) ? 1 : 0;
        }
        return removed;
    }

    private int check() {
        int hits = 0;
        int next = nextProbe;
        for (int i = 0; i < BATCH; i++) {
            hits += filter.mightContain(probes[next++ & (PROBES - 1)]) ? 1 : 0;
        }
        nextProbe = next;
        return hits;
    }

    private int putBatch() {
        int added = 0;
        for (Object key : batch) {
            added += filter.put(key) ? 1 : 0;
        }
        return added;
    }
}
