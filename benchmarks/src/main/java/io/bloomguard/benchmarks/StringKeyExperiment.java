package io.bloomguard.benchmarks;

import io.bloomguard.benchmarks.experiment.CandidateFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.local.LocalBloomFilter;
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

import java.util.concurrent.TimeUnit;

/**
 * Experiment behind the String-key numbers of {@link LocalFilterBenchmark}: where a check spends its time and
 * what a different text hash would save. {@code variant}: {@code LIBRARY} is bloom-guard's
 * {@code LocalBloomFilter} as built; the others are {@link CandidateFilter}, a copy of its check path, hashing
 * text as the library does ({@code COPY}, the control: must cost what {@code LIBRARY} costs), with a proposed
 * text hash ({@code ASCII_FAST_PATH}, {@code UTF8_BYTES}), or with the library's hash and a branch-free bit test
 * ({@code BRANCH_FREE_PROBE}). {@code keyHash} measures canonicalization and hashing alone. Same keys and probes as
 * {@link LocalFilterBenchmark}; the setup fails unless the variant gives the library's hash for every probe and
 * for some non-ASCII and numeric keys.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class StringKeyExperiment {

    private static final String[] UNUSUAL_KEYS = {"", "a", "user:ü", "ünïcödé-key-longer-than-16", "😀 emoji",
            "\uD800 lone surrogate", "x".repeat(31), "y".repeat(32), "0123456789abcdef", "42", "-7", "042"};

    @Param({"1000000", "50000000"})
    long n;

    @Param({"LIBRARY", "COPY", "ASCII_FAST_PATH", "UTF8_BYTES", "BRANCH_FREE_PROBE"})
    String variant;

    /**
     * Keys the JIT sees before measuring: {@code ASCII} only the probes, as in {@link LocalFilterBenchmark};
     * {@code MIXED} also a few non-ASCII and numeric keys, so that the slow branches have been taken once.
     */
    @Param({"ASCII"})
    String warmKeys;

    /**
     * Number of probes, a power of two. 2^20 String probes take 64 MB, so each check also streams its key
     * from memory, as in {@link LocalFilterBenchmark}; 4096 keep the keys in L1/L2, as a key just parsed from a
     * request would be (only meaningful for small {@code n}: few distinct blocks are touched).
     */
    @Param({"1048576"})
    int probeCount;

    private LocalBloomFilter library;
    private CandidateFilter copy;
    private Object[] probes;
    private int next;
    private int mask;

    @Setup(Level.Trial)
    public void fill() {
        library = LocalBloomFilter.create(FilterSizing.of(n, LocalFilterBenchmark.FPP), FilterUnderTest.SEED);
        for (long i = 0; i < n; i++) {
            library.put(BenchmarkKeys.STRING.present(i));
        }
        if (!variant.equals("LIBRARY")) {
            copy = switch (variant) {
                case "COPY" -> new CandidateFilter(library, CandidateFilter.TextHash.LIBRARY, false);
                case "BRANCH_FREE_PROBE" -> new CandidateFilter(library, CandidateFilter.TextHash.LIBRARY, true);
                default -> new CandidateFilter(library, CandidateFilter.TextHash.valueOf(variant), false);
            };
        }
        System.gc();
        probes = BenchmarkKeys.STRING.probes(n, probeCount, 0xB0B);
        mask = probeCount - 1;
        System.gc();
        // Every variant, the library included, sees the same keys before measuring, so that the JIT has the
        // same profile whichever code it compiles.
        if (warmKeys.equals("MIXED")) {
            checkUnusualKeys();
        }
        for (Object key : probes) {
            check(key);
        }
    }

    /** With warmKeys=ASCII the unusual keys are checked only after measuring, where they change nothing. */
    @TearDown(Level.Trial)
    public void checkUnusualKeys() {
        for (String key : UNUSUAL_KEYS) {
            check(key);
        }
    }

    private void check(Object key) {
        Hash128 expected = KeyCanonicalizer.hash(key, FilterUnderTest.SEED);
        Hash128 actual = copy == null ? KeyCanonicalizer.hash(key, FilterUnderTest.SEED) : copy.hash(key);
        boolean answer = copy == null ? library.mightContain(key) : copy.mightContain(key);
        if (!expected.equals(actual) || answer != library.mightContain(key)) {
            throw new IllegalStateException(variant + " differs from the library for " + key);
        }
    }

    @Benchmark
    public boolean mightContain() {
        Object key = probes[next++ & mask];
        return copy == null ? library.mightContain(key) : copy.mightContain(key);
    }

    @Benchmark
    public long keyHash() {
        Object key = probes[next++ & mask];
        return (copy == null ? KeyCanonicalizer.hash(key, FilterUnderTest.SEED) : copy.hash(key)).h1();
    }
}
