package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * What a loss of acknowledged adds costs: two instances share a filter of {@code n} keys ({@code refresh-interval}
 * 1 s, the default) while one puts new keys and a reader looks up absent keys at a steady rate; Redis restarts from a
 * file saved before the last puts (what a failover to a lagging replica also leaves: an older bitmap). Per round:
 * the time from the restart to the loss being found (by the instance that made the adds), to the filter being
 * trusted again (the rebuild from the key source), the keys the key source was read for, and the absent-key lookups that passed through
 * to the database meanwhile (what the database took beyond a guarded steady state, where about ε of them pass).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.LossRepairCost [n] [rounds]}
 */
public final class LossRepairCost {

    private static final int LOOKUPS_PER_SECOND = 2_000;

    private LossRepairCost() {
    }

    public static void main(String[] args) throws Exception {
        long n = (args.length > 0) ? Long.parseLong(args[0]) : 1_000_000;
        int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
        System.out.printf("n = %d keys, refresh-interval 1 s, %d absent-key lookups/s%n", n, LOOKUPS_PER_SECOND);
        System.out.println("round  found after (ms)  trusted again after (ms)  key source reads  lookups passed");
        for (int round = 1; round <= rounds; round++) {
            round(round, n);
        }
    }

    private static void round(int round, long n) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            RedisClient clientA = RedisFixtures.lettuce(redis);
            RedisClient clientB = RedisFixtures.lettuce(redis);
            var settings = RedisBackendSettingsBuilder.from(RedisFixtures.settings())
                    .refreshInterval(Duration.ofSeconds(1)).build();
            AtomicLong sourceReads = new AtomicLong();
            List<Object> database = new ArrayList<>(RedisFixtures.presentKeys(n));
            KeyFeed source = batches -> {
                List<Object> copy = List.copyOf(database);
                for (int from = 0; from < copy.size(); from += RedisFixtures.LOAD_BATCH) {
                    List<Object> batch = copy.subList(from, Math.min(copy.size(), from + RedisFixtures.LOAD_BATCH));
                    batches.accept(batch);
                    sourceReads.addAndGet(batch.size());
                }
                return copy.size();
            };
            try (RedisFilterBackend a = new RedisFilterBackend(() -> LettuceRedisPort.connect(clientA), settings);
                    RedisFilterBackend b = new RedisFilterBackend(() -> LettuceRedisPort.connect(clientB), settings)) {
                FilterSizing sizing = FilterSizing.of(2 * n, RedisFixtures.FPP);
                RedisBloomFilter onA = a.create("users", sizing, RedisFixtures.SEED, 1);
                RedisBloomFilter onB = b.create("users", sizing, RedisFixtures.SEED, 1);
                onA.start(source);
                onB.start(source);
                redis.command("SAVE");
                for (long i = n; i < n + 1_000; i++) { // created after the file was saved
                    Object key = BenchmarkKeys.LONG.present(i);
                    database.add(key);
                    onA.putAll(List.of(key));
                }
                sourceReads.set(0);
                AtomicBoolean reading = new AtomicBoolean(true);
                AtomicLong passed = new AtomicLong();
                Thread reader = new Thread(() -> lookUpAbsentKeys(onB, reading, passed), "absent-lookups");
                reader.start();
                long restarted = System.nanoTime();
                redis.restart();
                // Found by the instance that made the lost adds; the other learns of it from the stale mark.
                long found = awaitNanos(() -> onA.details().losses().detected() > 0) - restarted;
                long trusted = awaitNanos(() -> onA.status() == SharedFilterStatus.READY) - restarted;
                awaitNanos(() -> onA.details().losses().repairs() > 0 && onB.status() == SharedFilterStatus.READY);
                reading.set(false);
                reader.join();
                for (long i = n; i < n + 1_000; i++) {
                    if (!onB.mightContain(BenchmarkKeys.LONG.present(i))) {
                        throw new IllegalStateException("key " + i + " rejected after the repair");
                    }
                }
                System.out.printf("%5d  %17d  %24d  %16d  %14d%n", round, found / 1_000_000, trusted / 1_000_000,
                        sourceReads.get(), passed.get());
            }
            finally {
                clientA.shutdown();
                clientB.shutdown();
            }
        }
    }

    /** Absent keys at a steady rate, counting those the filter let through (the database's share). */
    private static void lookUpAbsentKeys(RedisBloomFilter filter, AtomicBoolean reading, AtomicLong passed) {
        SplittableRandom random = new SplittableRandom(42);
        long interval = 1_000_000_000L / LOOKUPS_PER_SECOND;
        long next = System.nanoTime();
        while (reading.get()) {
            Object key = BenchmarkKeys.LONG.absent(random.nextLong(1L << 40));
            try {
                if (!filter.trustedToReject() || filter.mightContain(key)) {
                    passed.incrementAndGet();
                }
            }
            catch (RuntimeException ex) { // Redis down: the guard lets the call through (on-backend-failure: allow)
                passed.incrementAndGet();
            }
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    private static long awaitNanos(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not within 5 minutes");
            }
            Thread.sleep(5);
        }
        return System.nanoTime();
    }
}
