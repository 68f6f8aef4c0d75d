package io.bloomguard.benchmarks;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The whole comparison of {@link RedisFilterBenchmark}: its methods in each mode and thread count, and a summary of
 * latencies and throughputs with their ratios to {@code GET} of the same run.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.RedisFilterBenchmark 1 16}.
 */
final class RedisFilterComparison {

    /** Keys per op of {@code bloomGuardCheckAll}. */
    private static final int BATCH = RedisFilterBenchmark.BATCH;

    private RedisFilterComparison() {
    }

    /**
     * Runs every benchmark of {@link RedisFilterBenchmark} with 1 thread (sample time, then throughput) and with each further
     * thread count given (throughput; default 16), then prints a summary with ratios to {@code GET}.
     * Arguments: thread counts (default {@code 1 16}); {@code -Dbench.include=REGEX} narrows the methods.
     */
    static void run(String[] args) throws RunnerException {
        List<Integer> threadCounts = new ArrayList<>();
        for (String arg : args) {
            threadCounts.add(Integer.parseInt(arg));
        }
        if (threadCounts.isEmpty()) {
            threadCounts = List.of(1, 16);
        }
        String include = RedisFilterBenchmark.class.getName() + "\\." + System.getProperty("bench.include", "");
        Map<String, Double> p50 = new LinkedHashMap<>();
        Map<String, Double> p99 = new LinkedHashMap<>();
        Map<String, Map<Integer, Double>> throughput = new LinkedHashMap<>();
        for (int threads : threadCounts) {
            List<Mode> modes = (threads == 1) ? List.of(Mode.SampleTime, Mode.Throughput) : List.of(Mode.Throughput);
            for (Mode mode : modes) {
                Options options = new OptionsBuilder().include(include).mode(mode).threads(threads)
                        .timeUnit(mode == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.NANOSECONDS).build();
                for (RunResult result : new Runner(options).run()) {
                    BenchmarkParams params = result.getParams();
                    String name = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
                    if (mode == Mode.SampleTime) {
                        p50.put(name, result.getPrimaryResult().getStatistics().getPercentile(50));
                        p99.put(name, result.getPrimaryResult().getStatistics().getPercentile(99));
                    }
                    else {
                        throughput.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(threads,
                                result.getPrimaryResult().getScore());
                    }
                }
            }
        }
        printSummary(threadCounts, p50, p99, throughput);
    }

    private static void printSummary(List<Integer> threadCounts, Map<String, Double> p50, Map<String, Double> p99,
            Map<String, Map<Integer, Double>> throughput) {
        List<String> names = new ArrayList<>(throughput.keySet());
        p50.keySet().stream().filter(name -> !names.contains(name)).forEach(names::add);
        System.out.println();
        System.out.println("Summary (one op of bloomGuardCheckAll = " + BATCH + " keys; ×GET = ratio to GET of this run;"
                + " latency ratios: lower is better, throughput ratios: higher is better)");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-20s %12s %8s %12s", "benchmark",
                "p50 ns/op", "×GET", "p99 ns/op"));
        for (int threads : threadCounts) {
            header.append(String.format(Locale.ROOT, " %13s %8s", "ops/s " + threads + "t", "×GET"));
        }
        System.out.println(header);
        Map<Integer, Double> getThroughput = throughput.getOrDefault("get", Map.of());
        for (String name : names) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-20s %12s %8s %12s", name,
                    number(p50.get(name), "%.0f"), ratio(p50.get(name), p50.get("get")), number(p99.get(name), "%.0f")));
            Map<Integer, Double> scores = throughput.getOrDefault(name, Map.of());
            for (int threads : threadCounts) {
                row.append(String.format(Locale.ROOT, " %13s %8s", number(scores.get(threads), "%.0f"),
                        ratio(scores.get(threads), getThroughput.get(threads))));
            }
            System.out.println(row);
        }
        if (p50.containsKey("bloomGuardCheckAll")) {
            System.out.printf(Locale.ROOT, "bloomGuardCheckAll per key: p50 %.0f ns%n", p50.get("bloomGuardCheckAll") / BATCH);
        }
        Map<Integer, Double> batch = throughput.getOrDefault("bloomGuardCheckAll", Map.of());
        batch.forEach((threads, score) -> System.out.printf(Locale.ROOT, "bloomGuardCheckAll keys/s with %d threads: %.0f%n",
                threads, score * BATCH));
        Map<Integer, Double> ours = throughput.getOrDefault("bloomGuardCheck", Map.of());
        Map<Integer, Double> redisson = throughput.getOrDefault("redissonContains", Map.of());
        for (int threads : threadCounts) {
            if (ours.containsKey(threads) && redisson.containsKey(threads)) {
                System.out.printf(Locale.ROOT, "bloomGuardCheck / redissonContains throughput with %d threads: %.2f×%n",
                        threads, ours.get(threads) / redisson.get(threads));
            }
        }
        if (p50.containsKey("bloomGuardCheck") && p50.containsKey("redissonContains")) {
            System.out.printf(Locale.ROOT, "bloomGuardCheck / redissonContains p50: %.2f×%n",
                    p50.get("bloomGuardCheck") / p50.get("redissonContains"));
        }
    }

    private static String number(Double value, String format) {
        return (value == null) ? "-" : String.format(Locale.ROOT, format, value);
    }

    private static String ratio(Double value, Double base) {
        return (value == null || base == null) ? "-" : String.format(Locale.ROOT, "%.2f", value / base);
    }
}
