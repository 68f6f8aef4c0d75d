package io.bloomguard.benchmarks;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.LocalCuckooFilter;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The local cuckoo filter ({@code type: cuckoo}) against the local counting filter ({@code type: counting}) and the
 * plain local filter, same {@code n} and ε: time per check and per put-and-remove, and bytes per key and the
 * false-positive rate measured against ε (printed once each trial has filled its filter).
 *
 * <p>Each trial fills the filter {@code impl} names with {@code n} Long keys ({@link BenchmarkKeys#LONG}, as in
 * {@link LocalFilterBenchmark}), then measures the false-positive rate over 10^6 absent keys (and fails on any present
 * key found absent). {@code check}: {@code mightContain} of the next of 2^20 shuffled probes, half present and half
 * absent, one per call. {@code churn}: {@code put} of a key never put, then its {@code remove} (two operations per
 * call; counting and cuckoo only: a plain filter cannot remove), so the filter stays at {@code n} keys. Threads share
 * the filter; run with {@code -t 1} and {@code -t 2}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar 'CuckooFilterBenchmark.check' -bm sample,thrpt}
 * and {@code java -jar benchmarks/target/benchmarks.jar 'CuckooFilterBenchmark.churn' -p impl=COUNTING,CUCKOO}
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.Throughput, Mode.SampleTime })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = { "-Xms2g", "-Xmx2g" })
public class CuckooFilterBenchmark {

    public enum Impl {
        BLOOM, COUNTING, CUCKOO
    }

    private static final int PROBES = 1 << 20;

    private static final int FPR_PROBES = 1_000_000;

    @Param({ "1000000" })
    long n;

    @Param({ "0.01", "0.001" })
    double errorRate;

    @Param({ "BLOOM", "COUNTING", "CUCKOO" })
    Impl impl;

    private BloomFilter filter;
    private Object[] probes;
    /** Hands each thread its own range of never-put keys. */
    private final AtomicLong threads = new AtomicLong();

    @Setup(Level.Trial)
    public void fill(BenchmarkParams params) {
        if (impl == Impl.BLOOM && params.getBenchmark().endsWith("churn")) {
            throw new IllegalStateException("a plain Bloom filter cannot remove: run churn with -p impl=COUNTING,CUCKOO");
        }
        FilterSizing sizing = FilterSizing.of(n, errorRate);
        filter = switch (impl) {
            case BLOOM -> LocalBloomFilter.create(sizing, FilterUnderTest.SEED);
            case COUNTING -> LocalCountingFilter.create(sizing, FilterUnderTest.SEED);
            case CUCKOO -> LocalCuckooFilter.create(sizing, FilterUnderTest.SEED);
        };
        for (long i = 0; i < n; i++) {
            filter.put(BenchmarkKeys.LONG.present(i));
        }
        for (long i = 0; i < n; i++) {
            if (!filter.mightContain(BenchmarkKeys.LONG.present(i))) {
                throw new IllegalStateException("false negative: key " + i);
            }
        }
        long falsePositives = 0;
        for (long i = 0; i < FPR_PROBES; i++) {
            falsePositives += filter.mightContain(BenchmarkKeys.LONG.absent(Long.MAX_VALUE / 4 + i)) ? 1 : 0;
        }
        probes = BenchmarkKeys.LONG.probes(n, PROBES, 0xB0B);
        System.out.printf("%n# %s n=%d ε=%s: %.2f bytes/key (%.1f bits), measured FPR %.5f (target %s, %d probes)%n",
                impl, n, errorRate, (double) filter.byteSize() / n, 8.0 * filter.byteSize() / n,
                (double) falsePositives / FPR_PROBES, errorRate, FPR_PROBES);
    }

    /** A thread's own position in the probes and in the never-put keys: nothing shared but the filter. */
    @State(Scope.Thread)
    public static class Cursor {

        int nextProbe;
        long nextNew;

        @Setup(Level.Trial)
        public void start(CuckooFilterBenchmark benchmark) {
            long thread = benchmark.threads.getAndIncrement();
            nextProbe = (int) (thread * 7919);
            // Absent keys from the top half of their indexes: the probes' absent keys come from the bottom half.
            nextNew = Long.MAX_VALUE / 2 + (thread << 40);
        }
    }

    @Benchmark
    public boolean check(Cursor cursor) {
        return filter.mightContain(probes[cursor.nextProbe++ & (PROBES - 1)]);
    }

    @Benchmark
    public boolean churn(Cursor cursor) {
        Object key = BenchmarkKeys.LONG.absent(cursor.nextNew++);
        filter.put(key);
        return filter.remove(key);
    }
}
