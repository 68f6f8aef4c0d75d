package io.bloomguard.benchmarks;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.RunnerException;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Checks against one local {@code redis-server} (started by each fork on a free loopback port, no persistence,
 * stopped at the end): bloom-guard's Redis backend ({@code mightContain}: one {@code GETRANGE} of the key's
 * 64-byte block; {@code mightContainAll} of 1,000 keys: one {@code EVALSHA}) against Redisson's
 * {@code RBloomFilter.contains} (one {@code EVALSHA} of a script doing 2 {@code HGET} + k {@code GETBIT}) and
 * a filter that grows by layers, grown to three ({@code scalableCheck}: one {@code EVALSHA} reading the layer count
 * and each layer's block), and the round-trip floor: {@code GET} of a 64-byte value and {@code PING} through a Lettuce sync connection.
 *
 * <p>Both filters: n = 10^6, ε = 0.01, loaded with the same 10^6 Long keys before measuring; probes are 2^16
 * Long keys, half present and half absent. One op of {@code bloomGuardCheckAll} is a batch of 1,000 keys.
 *
 * <p>With a near copy ({@code redis.near-copy: true}), a third filter of the same keys whose copy has been read:
 * {@code nearCopyCheckPresent} checks present keys (answered by the copy, no command), {@code nearCopyCheckAbsent}
 * absent keys the copy lacks (one {@code GETRANGE} each, as without a copy), each against {@code GET} of the run; with
 * {@code redis.near-copy: ordered}, {@code orderedCopyCheckAbsent} absent keys answered by the copy in step after a
 * barrier, which threads waiting together share ({@code redis.near-copy: leased}: {@link LeasedCopyBenchmark}). At
 * the end of each, the checks it sent to Redis are printed.
 * bloom-guard uses one shared connection (Lettuce pipelines the calls of concurrent threads on it), GET / PING
 * one shared Lettuce sync connection, Redisson its default pool.
 *
 * <p>Run {@link #main} for the whole comparison (latency, throughput with 1 and with 16 threads, and a summary
 * with ratios to {@code GET} of the same run): {@code java -cp benchmarks/target/benchmarks.jar
 * io.bloomguard.benchmarks.RedisFilterBenchmark}. Or plain JMH, e.g. {@code java -jar
 * benchmarks/target/benchmarks.jar RedisFilterBenchmark -bm thrpt -tu s -t 16}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class RedisFilterBenchmark {

    static final int PROBES = 1 << 16;

    static final int BATCH = 1000;

    /** Batches of {@link #BATCH} probes, a power of two. */
    static final int BATCHES = 64;

    static final byte[] GET_KEY = "bench:get".getBytes(StandardCharsets.UTF_8);

    /** The server, and a Lettuce sync connection for {@code GET} / {@code PING}. */
    @State(Scope.Benchmark)
    public static class Server {

        RedisServerProcess redis;
        RedisClient client;
        StatefulRedisConnection<byte[], byte[]> connection;
        RedisCommands<byte[], byte[]> sync;
        RedisAsyncCommands<byte[], byte[]> async;

        @Setup(Level.Trial)
        public void start() {
            redis = RedisServerProcess.start();
            client = RedisFixtures.lettuce(redis);
            connection = client.connect(ByteArrayCodec.INSTANCE);
            sync = connection.sync();
            async = connection.async();
            byte[] value = new byte[64]; // as long as a GETRANGE reply of one block
            Arrays.fill(value, (byte) 'x');
            sync.set(GET_KEY, value);
        }

        @TearDown(Level.Trial)
        public void stop() {
            connection.close();
            client.shutdown();
            redis.close();
        }
    }

    /** The probes: shared, read-only. */
    @State(Scope.Benchmark)
    public static class Probes {

        Object[] keys;
        List<List<Object>> batches;

        @Setup(Level.Trial)
        public void make() {
            keys = RedisFixtures.probes(PROBES);
            batches = RedisFixtures.batches(keys, BATCH, BATCHES);
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

    /** bloom-guard's filter, loaded through {@code start(feed)}. */
    @State(Scope.Benchmark)
    public static class BloomGuard {

        RedisFilterBackend backend;
        RedisBloomFilter filter;

        @Setup(Level.Trial)
        public void load(Server server, Probes probes) {
            backend = RedisFixtures.backend(server.client);
            filter = RedisFixtures.loadedBloomGuard(backend, "bench", RedisFixtures.N,
                    RedisFixtures.presentKeys(RedisFixtures.N));
            long hits = 0;
            for (List<Object> batch : probes.batches) {
                for (boolean hit : filter.mightContainAll(batch)) {
                    hits += hit ? 1 : 0;
                }
            }
            for (int i = 0; i < 1000; i++) {
                hits += filter.mightContain(probes.keys[i]) == filter.mightContainAll(List.of(probes.keys[i]))[0] ? 0 : 1_000_000;
            }
            report("bloom-guard", hits, (long) BATCH * BATCHES);
        }

        @TearDown(Level.Trial)
        public void close() {
            backend.close();
        }
    }

    /**
     * bloom-guard's filter with a near copy, read before measuring; present probes, and absent probes the copy lacks
     * (false positives left out: the copy answers those, as it does present keys).
     */
    @State(Scope.Benchmark)
    public static class NearCopy {

        static final int HALF = PROBES / 2;

        RedisFilterBackend backend;
        RedisBloomFilter filter;
        Object[] present = new Object[HALF];
        Object[] absent = new Object[HALF];
        long sentBefore;

        /** The copy's kind: {@code ON}, or {@code ORDERED} ({@link OrderedCopy}). */
        NearCopyMode mode() {
            return NearCopyMode.ON;
        }

        @Setup(Level.Trial)
        public void load(Server server) {
            backend = RedisFixtures.backend(server.client);
            filter = RedisFixtures.loadedBloomGuard(backend, "bench-near-" + mode().name().toLowerCase(Locale.ROOT),
                    RedisFixtures.N, RedisFixtures.presentKeys(RedisFixtures.N), mode());
            java.util.SplittableRandom random = new java.util.SplittableRandom(0xB0B);
            for (int i = 0; i < HALF; i++) {
                present[i] = BenchmarkKeys.LONG.present(random.nextLong(RedisFixtures.N));
                if (!filter.mightContain(present[i])) {
                    throw new IllegalStateException("near copy: false negative for " + present[i]);
                }
            }
            for (int i = 0; i < HALF; ) {
                Object key = BenchmarkKeys.LONG.absent(random.nextLong(Long.MAX_VALUE / 2));
                if (!filter.mightContain(key)) {
                    absent[i++] = key;
                }
            }
            sentBefore = filter.details().nearCopy().sentToStore();
        }

        @TearDown(Level.Trial)
        public void close() {
            System.out.printf(Locale.ROOT, "%n# near copy: %d checks sent to Redis while measuring%n",
                    filter.details().nearCopy().sentToStore() - sentBefore);
            backend.close();
        }
    }

    /** {@link NearCopy} kept in step ({@code redis.near-copy: ordered}): an absent key costs a barrier, no read. */
    @State(Scope.Benchmark)
    public static class OrderedCopy extends NearCopy {

        @Override
        NearCopyMode mode() {
            return NearCopyMode.ORDERED;
        }
    }

    /**
     * bloom-guard's filter that grows by layers ({@code growth: scale}): layer 0 for n/4 keys, then the same 10^6 keys
     * put 1,000 at a time, which add layers 1 and 2; a check is one script reading all three.
     */
    @State(Scope.Benchmark)
    public static class Scalable {

        RedisFilterBackend backend;
        RedisBloomFilter filter;

        @Setup(Level.Trial)
        public void load(Server server, Probes probes) {
            backend = RedisFixtures.backend(server.client);
            filter = backend.createScalable("bench-scale",
                    ScalableSizing.of(RedisFixtures.N / 4, RedisFixtures.FPP).layer(0), RedisFixtures.SEED,
                    AddFailurePolicy.BUFFER);
            filter.start(RedisFixtures.feed(List.of()));
            List<Object> keys = RedisFixtures.presentKeys(RedisFixtures.N);
            for (int from = 0; from < keys.size(); from += 1000) {
                filter.putAll(keys.subList(from, Math.min(keys.size(), from + 1000)));
            }
            long hits = 0;
            for (List<Object> batch : probes.batches) {
                for (boolean hit : filter.mightContainAll(batch)) {
                    hits += hit ? 1 : 0;
                }
            }
            System.out.printf(Locale.ROOT, "%n# scalable: %d layers%n", filter.layerCount());
            report("bloom-guard scale", hits, (long) BATCH * BATCHES);
        }

        @TearDown(Level.Trial)
        public void close() {
            backend.close();
        }
    }

    /** Redisson's filter: {@code tryInit(n, ε)}, then {@code add(Collection)} of the same keys. */
    @State(Scope.Benchmark)
    public static class Redisson {

        RedissonClient client;
        RBloomFilter<Object> filter;

        @Setup(Level.Trial)
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void load(Server server, Probes probes) {
            client = RedisFixtures.redisson(server.redis);
            filter = RedisFixtures.loadedRedisson(client, "redisson-bench", RedisFixtures.N,
                    RedisFixtures.presentKeys(RedisFixtures.N));
            long hits = 0;
            for (List<Object> batch : probes.batches) {
                hits += filter.contains((List) batch);
            }
            report("Redisson", hits, (long) BATCH * BATCHES);
        }

        @TearDown(Level.Trial)
        public void close() {
            client.shutdown();
        }
    }

    private static void report(String what, long hits, long probes) {
        // Half the probes are present: the hit rate is 0.5 + 0.5·fpp; below 0.5 means false negatives.
        System.out.printf(Locale.ROOT, "%n# %s: probe hit rate %.4f%n", what, (double) hits / probes);
        if (hits < probes / 2 || hits > probes) {
            throw new IllegalStateException(what + ": " + hits + " hits of " + probes + " probes");
        }
    }

    @Benchmark
    public boolean bloomGuardCheck(BloomGuard bloomGuard, Probes probes, Cursor cursor) {
        return bloomGuard.filter.mightContain(probes.keys[cursor.next++ & (PROBES - 1)]);
    }

    /** A filter that grows by layers, grown to three: one script per check. */
    @Benchmark
    public boolean scalableCheck(Scalable scalable, Probes probes, Cursor cursor) {
        return scalable.filter.mightContain(probes.keys[cursor.next++ & (PROBES - 1)]);
    }

    /** One op = one batch of {@link #BATCH} keys. */
    @Benchmark
    public boolean[] bloomGuardCheckAll(BloomGuard bloomGuard, Probes probes, Cursor cursor) {
        return bloomGuard.filter.mightContainAll(probes.batches.get(cursor.next++ & (BATCHES - 1)));
    }

    /** A present key, answered by the near copy: no command. */
    @Benchmark
    public boolean nearCopyCheckPresent(NearCopy nearCopy, Cursor cursor) {
        return nearCopy.filter.mightContain(nearCopy.present[cursor.next++ & (NearCopy.HALF - 1)]);
    }

    /** An absent key the near copy lacks: one {@code GETRANGE}, whose block is merged into the copy. */
    @Benchmark
    public boolean nearCopyCheckAbsent(NearCopy nearCopy, Cursor cursor) {
        return nearCopy.filter.mightContain(nearCopy.absent[cursor.next++ & (NearCopy.HALF - 1)]);
    }

    /**
     * An absent key an ordered copy in step lacks: the copy answers once a barrier ({@code PING} on the subscriber
     * connection) comes back; on one thread, one barrier a check.
     */
    @Benchmark
    public boolean orderedCopyCheckAbsent(OrderedCopy copy, Cursor cursor) {
        return copy.filter.mightContain(copy.absent[cursor.next++ & (NearCopy.HALF - 1)]);
    }

    @Benchmark
    public boolean redissonContains(Redisson redisson, Probes probes, Cursor cursor) {
        return redisson.filter.contains(probes.keys[cursor.next++ & (PROBES - 1)]);
    }

    @Benchmark
    public byte[] get(Server server) {
        return server.sync.get(GET_KEY);
    }

    /**
     * {@code GET} the way bloom-guard waits for its {@code GETRANGE}: an async command and
     * {@code CompletableFuture.get(timeout)}, without the sync API's proxy. A reference, not a target.
     */
    @Benchmark
    public byte[] getAwait(Server server) throws Exception {
        return server.async.get(GET_KEY).toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    @Benchmark
    public String ping(Server server) {
        return server.sync.ping();
    }

    /**
     * Runs every benchmark of this class with 1 thread (sample time, then throughput) and with each further
     * thread count given (throughput; default 16), then prints a summary with ratios to {@code GET}: see
     * {@link RedisFilterComparison}.
     */
    public static void main(String[] args) throws RunnerException {
        RedisFilterComparison.run(args);
    }
}
