package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.local.LocalBloomFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * What the leased near copy ({@code redis.near-copy: leased}) costs, against one local {@code redis-server} as in
 * {@link RedisFilterBenchmark} (whose server, cursor and near-copy states it shares): {@code leasedCopyCheckAbsent},
 * an absent key answered under the lease, against {@code localCheckAbsent}, the same keys in a local filter of the
 * same keys, and {@code clockRead}, the clock read each leased answer takes; and {@code leasedCopyPutIdle}, a put
 * while no flood has leases on, against {@code orderedCopyPut}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar LeasedCopyBenchmark -bm avgt -tu ns -wi 3 -w 2 -i 8 -r 2
 * -f 1}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class LeasedCopyBenchmark {

    /**
     * {@link RedisFilterBenchmark.NearCopy} leased ({@code redis.near-copy: leased}): the setup's absent checks are a flood, which switches
     * leases on; an absent key is then answered by the copy with no command while the lease holds.
     */
    @State(Scope.Benchmark)
    public static class LeasedCopy extends RedisFilterBenchmark.NearCopy {

        /** The same keys in a local filter: the check a leased absent check is compared with. */
        LocalBloomFilter local;

        @Override
        NearCopyMode mode() {
            return NearCopyMode.LEASED;
        }

        @Override
        public void load(RedisFilterBenchmark.Server server) {
            super.load(server);
            local = LocalBloomFilter.create(
                    FilterSizing.of(RedisFixtures.N, RedisFixtures.FPP), RedisFixtures.SEED);
            RedisFixtures.presentKeys(RedisFixtures.N).forEach(local::put);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!filter.details().nearCopy().absentKeys().equals("lease")) {
                for (Object key : absent) {
                    filter.mightContain(key); // the flood that switches leases on
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no lease: " + filter.details().nearCopy());
                }
            }
            sentBefore = filter.details().nearCopy().sentToStore();
        }
    }

    /**
     * {@link RedisFilterBenchmark.NearCopy} leased, its lease state {@code off} as after a flood has drained (set here directly: the
     * fixtures' refresh interval is an hour): a put's add script finds it off, and the put does not wait.
     */
    @State(Scope.Benchmark)
    public static class LeasedIdle extends RedisFilterBenchmark.NearCopy {

        @Override
        NearCopyMode mode() {
            return NearCopyMode.LEASED;
        }

        @Override
        public void load(RedisFilterBenchmark.Server server) {
            super.load(server);
            server.sync.hset(("bench:{" + filter.name() + "}:meta").getBytes(StandardCharsets.UTF_8),
                    "lease".getBytes(StandardCharsets.UTF_8), "off".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** An absent key a leased copy lacks, under its lease: no command; renewals go out in the background. */
    @Benchmark
    public boolean leasedCopyCheckAbsent(LeasedCopy copy, RedisFilterBenchmark.Cursor cursor) {
        return copy.filter.mightContain(copy.absent[cursor.next++ & (RedisFilterBenchmark.NearCopy.HALF - 1)]);
    }

    /** The same absent keys in a local filter of the same keys: the floor a leased check is compared with. */
    @Benchmark
    public boolean localCheckAbsent(LeasedCopy copy, RedisFilterBenchmark.Cursor cursor) {
        return copy.local.mightContain(copy.absent[cursor.next++ & (RedisFilterBenchmark.NearCopy.HALF - 1)]);
    }

    /** A put of a new key to an ordered copy's filter: one add script. */
    @Benchmark
    public void orderedCopyPut(RedisFilterBenchmark.OrderedCopy copy, RedisFilterBenchmark.Cursor cursor) {
        copy.filter.put((1L << 50) + cursor.next++);
    }

    /** The same put to a leased filter whose state is off: the add script, which reads the state as it adds. */
    @Benchmark
    public void leasedCopyPutIdle(LeasedIdle copy, RedisFilterBenchmark.Cursor cursor) {
        copy.filter.put((1L << 51) + cursor.next++);
    }

    /** One read of the monotonic clock: what every leased answer pays after its bits, and a local check does not. */
    @Benchmark
    public long clockRead() {
        return System.nanoTime();
    }
}
