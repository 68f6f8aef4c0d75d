package io.bloomguard.benchmarks;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code bloom-guard.redis.wait-for-replicas} costs a put: {@code put} of a key never put before into a
 * bloom-guard Redis filter (n = 10^6, ε = 0.01, one shard, {@code on-add-failure: fail}) on a local primary that has
 * one local replica ({@code replicaof}, both started by each fork on free loopback ports, no persistence), with
 * {@code waitForReplicas} 0 (one add script per put) and 1 (the script, then {@code WAIT 1 100} on the same
 * connection). The setup fails unless the replica is in sync, and the teardown unless no batch went unconfirmed.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar ReplicaWaitBenchmark -bm sample -tu us -t 1} for the latency
 * of one put at a time, {@code -bm thrpt -tu s -t 16} for puts from 16 threads (their adds and WAITs share the
 * backend's one connection, where each WAIT holds the commands behind it).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Threads(1)
public class ReplicaWaitBenchmark {

    @State(Scope.Benchmark)
    public static class PrimaryAndReplica {

        @Param({"0", "1"})
        int waitForReplicas;

        RedisServerProcess primary;
        RedisServerProcess replica;
        RedisClient client;
        RedisFilterBackend backend;
        RedisBloomFilter filter;
        /** Keys never put before: far above the (empty) start. */
        final AtomicLong next = new AtomicLong(1L << 40);

        @Setup(Level.Trial)
        public void start() {
            primary = RedisServerProcess.start();
            replica = RedisServerProcess.start("--replicaof", primary.host(), String.valueOf(primary.port()));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!replica.command("INFO", "replication").contains("master_link_status:up")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the replica did not sync within 10 s");
                }
                Thread.onSpinWait();
            }
            client = RedisFixtures.lettuce(primary);
            backend = new RedisFilterBackend(() -> LettuceRedisPort.connect(client),
                    RedisBackendSettingsBuilder.from(RedisFixtures.settings())
                            .waitForReplicas(waitForReplicas, Duration.ofMillis(100)).build());
            filter = backend.create("waited", FilterSizing.of(RedisFixtures.N, RedisFixtures.FPP),
                    RedisFixtures.SEED, 1, AddFailurePolicy.FAIL);
            SharedBloomFilter.StartOutcome outcome = filter.start(RedisFixtures.feed(List.of()));
            if (outcome != SharedBloomFilter.StartOutcome.LOADED_HERE) {
                throw new IllegalStateException("filter not loaded: " + outcome);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            long unconfirmed = filter.unconfirmedReplicaBatches();
            System.out.println(System.lineSeparator() + "waitForReplicas=" + waitForReplicas + ": " + (next.get() - (1L << 40))
                    + " puts, " + unconfirmed + " unconfirmed batches");
            backend.close();
            client.shutdown();
            replica.close();
            primary.close();
            if (unconfirmed != 0) {
                throw new IllegalStateException(unconfirmed + " batches unconfirmed: the replica lagged 100 ms");
            }
        }
    }

    @Benchmark
    public boolean put(PrimaryAndReplica redis) {
        return redis.filter.put(redis.next.getAndIncrement());
    }
}
