package io.bloomguard.benchmarks;

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

import java.util.concurrent.TimeUnit;

/**
 * {@code mightContain} of bloom-guard's local backend against Guava's {@code BloomFilter}, same {@code n}, ε = 1 %.
 *
 * <p>Each trial fills a filter with {@code n} keys, then checks a fixed, shuffled set of 2^20 probes of which
 * half were put and half were not, one probe per call. bloom-guard is called through its public
 * {@code BloomFilter} API with {@code Long} / {@code String} objects, so key canonicalization and hashing are
 * part of what is measured, as they are for Guava's funnels. Single-threaded: ops/s = 10^9 / (ns/op).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar LocalFilterBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class LocalFilterBenchmark {

    static final double FPP = 0.01;

    @Param({"1000000", "50000000"})
    long n;

    @Param({"LONG", "STRING"})
    BenchmarkKeys keyType;

    @Param({"BLOOM_GUARD", "GUAVA"})
    FilterImpl impl;

    /**
     * Number of probes, a power of two. The default 2^20 makes the {@code n = 5·10^7} filter touch blocks all
     * over memory, and also means each check streams its key object from memory (64 MB of String probes);
     * {@code -p probeCount=4096} keeps the keys in cache, as a key just parsed from a request would be, but
     * then only suits the small {@code n}, where the whole filter is in cache anyway.
     */
    @Param({"1048576"})
    int probeCount;

    private FilterUnderTest filter;
    private Object[] probes;
    private int next;
    private int mask;

    @Setup(Level.Trial)
    public void fill() {
        long start = System.nanoTime();
        filter = FilterUnderTest.filled(impl, keyType, n, FPP);
        System.gc(); // drop the keys made while filling, so the probes are allocated into a clean heap
        probes = keyType.probes(n, probeCount, 0xB0B);
        mask = probeCount - 1;
        // A full collection compacts the probes into the old generation in allocation order, which is the
        // order they are checked in, and no young collection moves them again while measuring.
        System.gc();
        int hits = 0;
        for (Object probe : probes) {
            if (filter.mightContain(probe)) {
                hits++;
            }
        }
        // Half the probes are present, so the hit rate is 0.5 + 0.5·fpp; anything below 0.5 is a false negative.
        System.out.printf("%n# filled %s %s n=%d in %.1f s: %.2f bytes/key, probe hit rate %.4f%n", impl, keyType, n,
                (System.nanoTime() - start) / 1e9, (double) filter.byteSize() / n, (double) hits / probeCount);
        if (hits < probeCount / 2) {
            throw new IllegalStateException("false negatives: " + hits + " hits of " + probeCount);
        }
    }

    @Benchmark
    public boolean mightContain() {
        return filter.mightContain(probes[next++ & mask]);
    }
}
