package io.bloomguard.benchmarks;

import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * How fast keys get into Redis, against one local {@code redis-server} started here:
 * <ul>
 * <li>bloom-guard: {@code start(feed)} of a fresh filter (it is the loader: builds the bits locally from the
 * in-memory feed, uploads them with {@code SETRANGE} and swaps them in) for each {@code n};</li>
 * <li>bloom-guard's incremental {@code putAll} (one {@code ADD} script per call), for comparison;</li>
 * <li>Redisson: {@code add(T)} in a loop (a script round trip per key), {@code add(Collection)} (one script
 * call per collection) with several collection sizes, and {@code addAsync(Collection)} with several calls in
 * flight over its connection pool.</li>
 * </ul>
 * Filters are sized n (bloom-guard) / {@code tryInit(n, ε)} (Redisson, n = 10^6), ε = 0.01, Long keys. Each
 * variant runs once to warm up and then {@code reps} times; the best and the median rate are printed.
 *
 * <p>Run: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.RedisPreloadRate
 * [redissonKeys [n ...]]} (defaults: 100,000 Redisson keys; n = 10^6 and 5·10^6).
 */
public final class RedisPreloadRate {

    private static final int REPS = 3;

    private static int filters;

    private RedisPreloadRate() {
    }

    public static void main(String[] args) throws Exception {
        long redissonKeys = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
        List<Long> sizes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            sizes.add(Long.parseLong(args[i]));
        }
        if (sizes.isEmpty()) {
            sizes = List.of(1_000_000L, 5_000_000L);
        }
        try (RedisServerProcess server = RedisServerProcess.start()) {
            RedisClient client = RedisFixtures.lettuce(server);
            RedisFilterBackend backend = RedisFixtures.backend(client);
            RedissonClient redisson = RedisFixtures.redisson(server);
            try {
                System.out.printf(Locale.ROOT, "%-52s %12s %14s %14s%n", "what", "keys", "best keys/s", "median keys/s");
                for (long n : sizes) {
                    List<Object> keys = RedisFixtures.presentKeys(n);
                    measure("bloom-guard start(feed), fresh filter n = " + n, n, () -> {
                        RedisBloomFilter filter = RedisFixtures.loadedBloomGuard(backend, "preload-" + filters++, n, keys);
                        return () -> verify(filter, keys);
                    });
                }
                List<Object> keys = RedisFixtures.presentKeys(redissonKeys);
                for (int batch : new int[] {1_000, 10_000}) {
                    measure("bloom-guard putAll, " + batch + " keys per call", redissonKeys, () -> {
                        RedisBloomFilter filter = RedisFixtures.loadedBloomGuard(backend, "put-" + filters++,
                                RedisFixtures.N, List.of());
                        for (int from = 0; from < keys.size(); from += batch) {
                            filter.putAll(keys.subList(from, Math.min(keys.size(), from + batch)));
                        }
                        return () -> verify(filter, keys);
                    });
                }
                measureRedisson(redisson, "Redisson add(T) loop", Math.min(redissonKeys, 10_000), keys, (filter, part) -> {
                    for (Object key : part) {
                        filter.add(key);
                    }
                });
                for (int batch : new int[] {1_000, 10_000, 100_000}) {
                    measureRedisson(redisson, "Redisson add(Collection), " + batch + " keys per call", redissonKeys, keys,
                            (filter, part) -> {
                                for (int from = 0; from < part.size(); from += batch) {
                                    filter.add(part.subList(from, Math.min(part.size(), from + batch)));
                                }
                            });
                }
                measureRedisson(redisson, "Redisson addAsync(Collection), 10000 keys, 4 in flight", redissonKeys, keys,
                        (filter, part) -> {
                            List<CompletableFuture<Long>> inFlight = new ArrayList<>();
                            for (int from = 0; from < part.size(); from += 10_000) {
                                inFlight.add(filter.addAsync(part.subList(from, Math.min(part.size(), from + 10_000)))
                                        .toCompletableFuture());
                                if (inFlight.size() == 4) {
                                    inFlight.remove(0).join();
                                }
                            }
                            inFlight.forEach(CompletableFuture::join);
                        });
            }
            finally {
                redisson.shutdown();
                backend.close();
                client.shutdown();
            }
        }
    }

    private interface RedissonLoad {
        void load(RBloomFilter<Object> filter, List<Object> keys);
    }

    private static void measureRedisson(RedissonClient redisson, String what, long count, List<Object> allKeys,
            RedissonLoad load) {
        List<Object> keys = allKeys.subList(0, Math.toIntExact(count));
        measure(what, count, () -> {
            RBloomFilter<Object> filter = redisson.getBloomFilter("redisson-preload-" + filters++);
            filter.tryInit(RedisFixtures.N, RedisFixtures.FPP);
            load.load(filter, keys);
            return () -> {
                for (int from = 0; from < keys.size(); from += 10_000) {
                    List<Object> part = keys.subList(from, Math.min(keys.size(), from + 10_000));
                    if (filter.contains(part) != part.size()) {
                        throw new IllegalStateException(what + ": false negatives");
                    }
                }
            };
        });
    }

    /**
     * Warm-up once, then {@link #REPS} timed runs; each run returns a check that every key went in (no false
     * negatives), which is run after the clock stops.
     */
    private static void measure(String what, long keys, Supplier<Runnable> load) {
        load.get().run();
        double[] rates = new double[REPS];
        for (int rep = 0; rep < REPS; rep++) {
            System.gc();
            long start = System.nanoTime();
            Runnable verify = load.get();
            rates[rep] = keys / RedisFixtures.seconds(System.nanoTime() - start);
            verify.run();
        }
        java.util.Arrays.sort(rates);
        System.out.printf(Locale.ROOT, "%-52s %,12d %,14.0f %,14.0f%n", what, keys, rates[REPS - 1], rates[REPS / 2]);
    }

    /** Every one of (a sample of) the loaded keys must be found: no false negatives. */
    private static void verify(RedisBloomFilter filter, List<Object> keys) {
        int step = Math.max(1, keys.size() / 1000);
        List<Object> sample = new ArrayList<>();
        for (int i = 0; i < keys.size(); i += step) {
            sample.add(keys.get(i));
        }
        for (boolean hit : filter.mightContainAll(sample)) {
            if (!hit) {
                throw new IllegalStateException("false negative in " + filter);
            }
        }
    }
}
