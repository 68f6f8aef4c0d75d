package io.bloomguard.benchmarks;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.local.LocalBloomFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
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
 * What a check of a filter far larger than the CPU caches waits for: the memory fetch alone, or the hash as well.
 *
 * <p>An experiment behind the {@code n = 5·10^7} rows of {@link LocalFilterBenchmark}, where a {@code String}
 * check costs about twice a {@code Long} check although hashing a string costs only a few nanoseconds more in
 * cache. All four methods read the same kind of block for the same probes (2^20, half present, one per call):
 * <ul>
 * <li>{@code localFilter}: {@code LocalBloomFilter.mightContain}, as {@link LocalFilterBenchmark} measures it;</li>
 * <li>{@code hashThenRead}: the same arithmetic on a copy of the filter's words (hash the key, then read its
 * block), to show the copy costs what the filter does;</li>
 * <li>{@code prehashed}: the block reads alone, from hashes computed before measuring: the memory cost;</li>
 * <li>{@code hashBeside}: hashes the key as a check does, but reads the block of the precomputed hash, so the
 * read does not wait for the hash: the same instructions without the dependency.</li>
 * </ul>
 * While one check waits on memory the CPU runs ahead into the next ones, as far as its window of in-flight
 * instructions reaches. If {@code hashBeside} costs what {@code hashThenRead} costs, it is the hash's number
 * of instructions, not its latency, that keeps a check's fetch from overlapping the next one's.
 *
 * <p>Run: {@code java -Xmx10g -jar benchmarks/target/benchmarks.jar CheckOverlapBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class CheckOverlapBenchmark {

    private static final int PROBES = 1 << 20;

    /**
     * Unused words in front of the copy, as {@code LocalBitArray} keeps them: a large array starts 16 bytes past a
     * cache line under G1, and 48 more bytes put every block on a line of its own.
     */
    private static final int LEADING_WORDS = 6;

    @Param({"50000000"})
    long n;

    @Param({"LONG", "STRING"})
    BenchmarkKeys keyType;

    private BloomFilter filter;
    private long[] words;
    private int blockCount;
    private int hashCount;
    private Object[] probes;
    private long[] probeH1;
    private long[] probeH2;
    private int next;

    @Setup(Level.Trial)
    public void fill() {
        LocalBloomFilter local = LocalBloomFilter.create(FilterSizing.of(n, LocalFilterBenchmark.FPP), FilterUnderTest.SEED);
        for (long i = 0; i < n; i++) {
            local.put(keyType.present(i));
        }
        filter = local;
        long[] copy = local.toWords();
        words = new long[LEADING_WORDS + copy.length];
        System.arraycopy(copy, 0, words, LEADING_WORDS, copy.length);
        blockCount = (int) local.sizing().blockCount();
        hashCount = local.hashCount();
        System.gc();
        probes = keyType.probes(n, PROBES, 0xB0B);
        probeH1 = new long[PROBES];
        probeH2 = new long[PROBES];
        int agree = 0;
        for (int i = 0; i < PROBES; i++) {
            Hash128 hash = KeyCanonicalizer.hash(probes[i], FilterUnderTest.SEED);
            probeH1[i] = hash.h1();
            probeH2[i] = hash.h2();
            if (readBlock(hash.h1(), hash.h2()) == filter.mightContain(probes[i])) {
                agree++;
            }
        }
        System.gc();
        if (agree != PROBES) {
            throw new IllegalStateException("the copy answered " + (PROBES - agree) + " probes unlike the filter");
        }
    }

    @Benchmark
    public boolean localFilter() {
        return filter.mightContain(probes[next++ & (PROBES - 1)]);
    }

    @Benchmark
    public boolean hashThenRead() {
        return hashThenRead(probes[next++ & (PROBES - 1)]);
    }

    @Benchmark
    public boolean prehashed() {
        return prehashed(next++ & (PROBES - 1));
    }

    @Benchmark
    public boolean hashBeside() {
        int i = next++ & (PROBES - 1);
        return hashBeside(probes[i], i);
    }

    // Not inlined, like LocalBloomFilter.mightContain in LocalFilterBenchmark (too large for the JIT to inline):
    // the call is part of what each check costs.
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private boolean hashThenRead(Object key) {
        Hash128 hash = KeyCanonicalizer.hash(key, FilterUnderTest.SEED);
        return readBlock(hash.h1(), hash.h2());
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private boolean prehashed(int i) {
        return readBlock(probeH1[i], probeH2[i]);
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private boolean hashBeside(Object key, int i) {
        Hash128 hash = KeyCanonicalizer.hash(key, FilterUnderTest.SEED);
        // The answer depends on the hash, so the JIT keeps it, but the block address does not.
        return readBlock(probeH1[i], probeH2[i]) ^ (hash.h1() == 0x5EED);
    }

    /** The k bits of a hash in {@link #words}, as the local filter's check reads them (plain loads here). */
    private boolean readBlock(long h1, long h2) {
        long[] bits = words;
        int firstWord = LEADING_WORDS + BlockedBloomLayout.blockIndex(h1, blockCount) * BlockedBloomLayout.BLOCK_WORDS;
        long step = BlockedBloomLayout.step(h1);
        long probe = h2;
        long present = 1;
        for (int i = 0; i < (hashCount & 31); i++) {
            present &= bits[firstWord + BlockedBloomLayout.wordInBlock(probe)] >>> BlockedBloomLayout.bitInBlock(probe);
            probe = BlockedBloomLayout.nextProbe(probe, step);
        }
        return (present & 1) != 0;
    }
}
