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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One check of one key per op, by each {@link NativeKind}, against a filter of n = 10^6 Long keys at ε
 * ({@code fpp}) on a {@code redis-server} with the RedisBloom module: bloom-guard's bitmap kind, raw
 * {@code BF.EXISTS} / {@code CF.EXISTS} through a Lettuce connection, each also inside a script that checks the
 * key exists, Redisson's {@code RBloomFilterNative}, and the floors {@code GET} and {@code PING}. Probes: the 2^16
 * of {@link RedisFixtures#probes}, half present, half absent; the setup fails on a false negative.
 *
 * <p>{@link NativeFilterComparison} runs it against one server for every fork and prints the summary. Alone, each
 * fork starts its own server with the module ({@code REDISBLOOM_MODULE}): {@code java -jar
 * benchmarks/target/benchmarks.jar NativeFilterBenchmark -p kind=BF_EXISTS_SCRIPT -p fpp=0.01}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class NativeFilterBenchmark {

    static final int PROBES = 1 << 16;

    /** The kind's filter, loaded (or found loaded) before measuring. */
    @State(Scope.Benchmark)
    public static class Filter {

        @Param
        NativeKind kind;

        @Param({"0.01", "0.001"})
        double fpp;

        NativeServer server;
        NativeKind.Check check;
        Object[] probes;

        @Setup(Level.Trial)
        public void load() {
            server = NativeServer.connect();
            List<Object> keys = RedisFixtures.presentKeys(RedisFixtures.N);
            check = kind.open(server, fpp, keys);
            probes = RedisFixtures.probes(PROBES);
            if (kind.filter()) {
                long hits = 0;
                for (long i = 0; i < RedisFixtures.N; i += 997) {
                    if (!check.mightContain(keys.get((int) i))) {
                        throw new IllegalStateException(kind + ": false negative for " + keys.get((int) i));
                    }
                }
                for (Object probe : probes) {
                    hits += check.mightContain(probe) ? 1 : 0;
                }
                System.out.printf(Locale.ROOT, "%n# %s ε=%s: probe hit rate %.4f (0.5 + 0.5·fpp expected)%n", kind, fpp,
                        (double) hits / PROBES);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            server.close();
        }
    }

    /** Where each thread is in the probes. */
    @State(Scope.Thread)
    public static class Cursor {

        int next;

        @Setup(Level.Trial)
        public void place(ThreadParams thread) {
            next = thread.getThreadIndex() * 4099;
        }
    }

    @Benchmark
    public boolean check(Filter filter, Cursor cursor) {
        return filter.check.mightContain(filter.probes[cursor.next++ & (PROBES - 1)]);
    }

}
