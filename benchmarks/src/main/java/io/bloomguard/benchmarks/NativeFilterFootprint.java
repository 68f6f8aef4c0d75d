package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterSpec;
import io.bloomguard.redis.RedisKinds;
import io.bloomguard.redis.kind.RedisKind;
import org.redisson.api.RBloomFilterNative;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Memory per key and false-positive rates of the filters {@link NativeKind} checks, on a server with the RedisBloom
 * module, n = 10^6 Long keys, ε = 0.01 and 0.001: {@code MEMORY USAGE} of the filter's keys after n adds (and
 * {@code BF.INFO} / {@code CF.INFO} {@code Size}), and the false-positive rate over 10^6 absent keys (always the same
 * ones, {@code BenchmarkKeys.LONG.absent(0..10^6-1)}) at 1× and at 4× capacity (3n more keys added). Filters:
 * bloom-guard's bitmap kind (fixed size, {@code growth: none}), {@code BF.RESERVE key ε n} with RedisBloom's
 * default {@code EXPANSION 2} (it adds sub-filters as it fills) and with {@code NONSCALING} (it refuses adds once
 * full: the items {@code BF.INFO} counts as inserted are printed), {@code CF.RESERVE key n} with the defaults
 * ({@code BUCKETSIZE 2}, {@code EXPANSION 1}) and with {@code BUCKETSIZE 4} (8-bit fingerprints whatever ε, so once for both), and Redisson's
 * {@code RBloomFilterNative.init(ε, n)} (a {@code BF.RESERVE} too), and bloom-guard's native kinds as the backend
 * reserves and fills them ({@code NATIVE_BLOOM}, {@code NATIVE_CUCKOO}: its add script, up to two copies a key; 3n
 * more keys added with {@code putAll}, no rebuild).
 *
 * <p>Run alone: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.NativeFilterFootprint}
 * (starts its own server with {@code REDISBLOOM_MODULE}); {@link NativeFilterComparison} runs it on its server.
 * {@code -D}{@value #ROWS_PROPERTY}{@code =NATIVE_CUCKOO} narrows the rows (of {@code BITMAP, BF, REDISSON, CF,
 * NATIVE_BLOOM, NATIVE_CUCKOO}; all by default).
 */
public final class NativeFilterFootprint {

    static final int ABSENT = 1_000_000;

    /** System property: the rows to print, comma-separated; all by default. */
    static final String ROWS_PROPERTY = "bench.footprint.rows";

    private static final int CHECK_BATCH = 1000;

    private NativeFilterFootprint() {
    }

    public static void main(String[] args) {
        try (NativeServer server = NativeServer.connect()) {
            print(server);
        }
    }

    static void print(NativeServer server) {
        int n = Math.toIntExact(RedisFixtures.N);
        List<Object> keys = RedisFixtures.presentKeys(4L * n);
        List<Object> first = keys.subList(0, n);
        System.out.printf(Locale.ROOT, "%n# Footprint: n = %,d, FPR over %,d absent keys; bytes = MEMORY USAGE (SAMPLES 0)"
                + " of the filter's keys; info = BF.INFO / CF.INFO Size%n", n, ABSENT);
        System.out.printf(Locale.ROOT, "%-34s %7s %12s %12s %9s %9s   %-40s%n", "filter", "ε", "bytes at n", "info at n",
                "bytes/key", "FPR at n", "at 4n: FPR, bytes, note");
        Set<String> rows = Set.copyOf(Arrays.asList(System.getProperty(ROWS_PROPERTY,
                "BITMAP,BF,REDISSON,CF,NATIVE_BLOOM,NATIVE_CUCKOO").split(",")));
        for (double fpp : new double[] {0.01, 0.001}) {
            if (rows.contains("BITMAP")) {
                bitmap(server, fpp, keys, first);
            }
            for (boolean scaling : rows.contains("BF") ? new boolean[] {true, false} : new boolean[0]) {
                String key = "foot:bf:" + fpp + (scaling ? ":x2" : ":nonscaling");
                List<String> reserve = new ArrayList<>(List.of("BF.RESERVE", key, Double.toString(fpp), Integer.toString(n)));
                if (!scaling) {
                    reserve.add("NONSCALING");
                }
                native4x(server, scaling ? "BF EXPANSION 2 (default)" : "BF NONSCALING", fpp, key, reserve,
                        List.of("BF.MADD", key), "BF.MEXISTS", "BF.INFO", keys);
            }
            if (rows.contains("REDISSON")) {
                RBloomFilterNative<String> redisson = server.redisson().getBloomFilterNative("foot:redisson:" + fpp,
                        StringCodec.INSTANCE);
                redisson.init(fpp, n);
                System.out.printf(Locale.ROOT, "%-34s %7s %12s %12d %9s %9s   %s%n", "Redisson RBloomFilterNative", fpp,
                        "-", server.info("BF.INFO", "foot:redisson:" + fpp, "Size"), "-", "-",
                        "init(ε, n) is BF.RESERVE ε n: the BF row's filter");
            }
            if (rows.contains("NATIVE_BLOOM")) {
                kind(server, "bloom-guard native Bloom kind", RedisKinds.NATIVE_BLOOM, "BF.INFO", fpp, keys, first);
            }
            if (rows.contains("NATIVE_CUCKOO")) {
                kind(server, "bloom-guard native cuckoo kind", RedisKinds.NATIVE_CUCKOO, "CF.INFO", fpp, keys, first);
            }
        }
        for (int bucketSize : rows.contains("CF") ? new int[] {2, 4} : new int[0]) {
            String key = "foot:cf:b" + bucketSize;
            native4x(server, "CF BUCKETSIZE " + bucketSize + (bucketSize == 2 ? " (default)" : ""), Double.NaN, key,
                    List.of("CF.RESERVE", key, Integer.toString(n), "BUCKETSIZE", Integer.toString(bucketSize)),
                    List.of("CF.INSERT", key, "NOCREATE", "ITEMS"), "CF.MEXISTS", "CF.INFO", keys);
        }
    }

    /**
     * A bloom-guard native kind's filter of n keys at {@code fpp}, loaded and then added to as the backend does it:
     * bytes of all its keys (the module's filter and bloom-guard's metadata), the module's {@code Size} and
     * sub-filters, the rate through {@code mightContainAll} at n and after 3n more {@code putAll}s.
     */
    private static void kind(NativeServer server, String what, RedisKind kind, String info, double fpp,
            List<Object> keys, List<Object> first) {
        String name = "foot-" + info.substring(0, 2).toLowerCase(Locale.ROOT) + "-" + fpp;
        RedisBloomFilter filter = server.filter(name, RedisFilterSpec.builder(kind, FilterSizing.of(first.size(), fpp))
            .build(), first);
        String pattern = RedisFixtures.settings().keyPrefix() + "{" + name + "}:*";
        long bytes = server.memoryUsage(pattern);
        String key = server.moduleKey(pattern);
        long size = server.info(info, key, "Size");
        long filtersAtN = server.info(info, key, "Number of filters");
        double fprAtN = fpr((batch) -> filter.mightContainAll(batch));
        for (int from = first.size(); from < keys.size(); from += NativeServer.LOAD_BATCH) {
            filter.putAll(keys.subList(from, Math.min(keys.size(), from + NativeServer.LOAD_BATCH)));
        }
        double fprAt4n = fpr((batch) -> filter.mightContainAll(batch));
        System.out.printf(Locale.ROOT,
                "%-34s %7s %,12d %,12d %9.3f %9.5f   %.5f, %,d bytes, %d filters (%d at n), count %,d of %,d keys"
                        + " (%s)%n", what, fpp, bytes, size, (double) bytes / first.size(), fprAtN, fprAt4n,
                server.memoryUsage(pattern), server.info(info, key, "Number of filters"), filtersAtN,
                filter.approximateElementCount(), keys.size(), key);
    }

    private static void bitmap(NativeServer server, double fpp, List<Object> keys, List<Object> first) {
        String name = "foot-bitmap-" + fpp;
        RedisBloomFilter filter = server.bitmap(name, FilterSizing.of(first.size(), fpp), first);
        String pattern = RedisFixtures.settings().keyPrefix() + "{" + name + "}:*";
        long bytes = server.memoryUsage(pattern);
        double fprAtN = fpr((batch) -> filter.mightContainAll(batch));
        for (int from = first.size(); from < keys.size(); from += NativeServer.LOAD_BATCH) {
            filter.putAll(keys.subList(from, Math.min(keys.size(), from + NativeServer.LOAD_BATCH)));
        }
        double fprAt4n = fpr((batch) -> filter.mightContainAll(batch));
        System.out.printf(Locale.ROOT, "%-34s %7s %,12d %,12d %9.3f %9.5f   %.5f, %,d bytes, fixed size (growth: none)%n",
                "bloom-guard bitmap", fpp, bytes, filter.byteSize(), (double) bytes / first.size(), fprAtN, fprAt4n,
                server.memoryUsage(pattern));
    }

    private static void native4x(NativeServer server, String what, double fpp, String key, List<String> reserve,
            List<String> add, String mexists, String info, List<Object> keys) {
        int n = keys.size() / 4;
        server.call(List.of("DEL", key));
        server.call(reserve);
        long refusedAtN = server.add(add, keys, 0, n);
        long bytes = server.memoryUsage(key);
        long size = server.info(info, key, "Size");
        double fprAtN = fpr((batch) -> mexists(server, mexists, key, batch));
        long refused = server.add(add, keys, n, keys.size());
        double fprAt4n = fpr((batch) -> mexists(server, mexists, key, batch));
        System.out.printf(Locale.ROOT,
                "%-34s %7s %,12d %,12d %9.3f %9.5f   %.5f, %,d bytes, %d filters, %,d of %,d items inserted, %d batches"
                        + " refused in part (%d of the first n)%n", what,
                Double.isNaN(fpp) ? "-" : Double.toString(fpp), bytes, size, (double) bytes / n, fprAtN, fprAt4n,
                server.memoryUsage(key), server.info(info, key, "Number of filters"),
                server.info(info, key, "Number of items inserted"), keys.size(), refused, refusedAtN);
    }

    private static boolean[] mexists(NativeServer server, String mexists, String key, List<Object> batch) {
        List<String> command = new ArrayList<>(batch.size() + 2);
        command.add(mexists);
        command.add(key);
        for (Object probe : batch) {
            command.add(NativeServer.item(probe));
        }
        List<Object> reply = server.call(command);
        boolean[] answers = new boolean[reply.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = ((Number) reply.get(i)).longValue() != 0;
        }
        return answers;
    }

    /** Share of the {@value #ABSENT} absent keys {@code check} answers "might contain" for. */
    private static double fpr(java.util.function.Function<List<Object>, boolean[]> check) {
        long positives = 0;
        List<Object> batch = new ArrayList<>(CHECK_BATCH);
        for (int i = 0; i < ABSENT; i++) {
            batch.add(BenchmarkKeys.LONG.absent(i));
            if (batch.size() == CHECK_BATCH) {
                for (boolean answer : check.apply(batch)) {
                    positives += answer ? 1 : 0;
                }
                batch.clear();
            }
        }
        return (double) positives / ABSENT;
    }

}
