package io.bloomguard.benchmarks;

import io.bloomguard.testsupport.redis.RedisBloomModule;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The native filters compared on one {@code redis-server} with the RedisBloom module, started here
 * ({@code REDISBLOOM_MODULE}) and shared by every JMH fork: {@link NativeFilterBenchmark} for each {@link NativeKind}
 * and ε ∈ {0.01, 0.001} (the floors {@code GET} and {@code PING} at the head of each ε's group), with 1 thread (sample time, then
 * throughput) and with each further thread count (throughput), then {@link NativeFilterFootprint} (memory per key
 * and false-positive rates) on the same server, and a summary with ratios to {@code GET} of the same run.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.NativeFilterComparison
 * [threads ...]} (default {@code 1 16}); {@code -Dbench.kinds=BITMAP,BF_EXISTS} narrows the filter kinds,
 * {@code -Dbench.footprint=false} leaves out the footprint, {@code -Dbench.footprint.rows=NATIVE_CUCKOO} narrows its rows
 * ({@link NativeFilterFootprint#ROWS_PROPERTY}).
 */
public final class NativeFilterComparison {

    private static final String[] FPPS = {"0.01", "0.001"};

    private NativeFilterComparison() {
    }

    public static void main(String[] args) throws RunnerException {
        List<Integer> threadCounts = new ArrayList<>();
        for (String arg : args) {
            threadCounts.add(Integer.parseInt(arg));
        }
        if (threadCounts.isEmpty()) {
            threadCounts = List.of(1, 16);
        }
        if (!RedisBloomModule.available()) {
            throw new IllegalStateException("Set REDISBLOOM_MODULE to a RedisBloom module's .so: " + RedisBloomModule.path());
        }
        List<String> filterKinds = new ArrayList<>();
        for (NativeKind kind : NativeKind.values()) {
            if (kind.filter()) {
                filterKinds.add(kind.name());
            }
        }
        String narrowed = System.getProperty("bench.kinds");
        if (narrowed != null) {
            filterKinds = Arrays.asList(narrowed.split(","));
        }
        try (RedisServerProcess redis = RedisServerProcess.startWithRedisBloom()) {
            System.out.println("# " + redis + ", modules: " + redis.command("MODULE", "LIST").replace('\n', ' '));
            System.out.println("# CPU: " + cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
            Map<String, Double> p50 = new LinkedHashMap<>();
            Map<String, Double> p99 = new LinkedHashMap<>();
            Map<String, Map<Integer, Double>> throughput = new LinkedHashMap<>();
            for (int threads : threadCounts) {
                List<Mode> modes = (threads == 1) ? List.of(Mode.SampleTime, Mode.Throughput) : List.of(Mode.Throughput);
                for (Mode mode : modes) {
                    // The floors at the head of each ε's group: the round trip drifts from minute to minute here, so
                    // each filter is compared with the GET measured just before it.
                    for (String fpp : FPPS) {
                        List<String> kinds = new ArrayList<>(List.of(NativeKind.GET.name(), NativeKind.PING.name()));
                        kinds.addAll(filterKinds);
                        run(redis, mode, threads, kinds, new String[] {fpp}, p50, p99, throughput);
                    }
                }
            }
            printSummary(threadCounts, p50, p99, throughput);
            if (Boolean.parseBoolean(System.getProperty("bench.footprint", "true"))) {
                try (NativeServer server = NativeServer.on(redis)) {
                    NativeFilterFootprint.print(server);
                }
            }
        }
    }

    private static void run(RedisServerProcess redis, Mode mode, int threads, List<String> kinds, String[] fpps,
            Map<String, Double> p50, Map<String, Double> p99, Map<String, Map<Integer, Double>> throughput)
            throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder().include(NativeFilterBenchmark.class.getName() + "\\.check$")
            .mode(mode)
            .threads(threads)
            .timeUnit(mode == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.NANOSECONDS)
            .param("kind", kinds.toArray(String[]::new))
            .param("fpp", fpps)
            // Replaces the annotation's: keep its heap settings.
            .jvmArgsAppend("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch",
                    "-D" + NativeServer.PORT_PROPERTY + "=" + redis.port());
        for (RunResult result : new Runner(options.build()).run()) {
            String kind = result.getParams().getParam("kind");
            String name = kind + " ε=" + result.getParams().getParam("fpp");
            if (mode == Mode.SampleTime) {
                p50.put(name, result.getPrimaryResult().getStatistics().getPercentile(50));
                p99.put(name, result.getPrimaryResult().getStatistics().getPercentile(99));
            }
            else {
                throughput.computeIfAbsent(name, (k) -> new LinkedHashMap<>()).put(threads, result.getPrimaryResult().getScore());
            }
        }
    }

    private static void printSummary(List<Integer> threadCounts, Map<String, Double> p50, Map<String, Double> p99,
            Map<String, Map<Integer, Double>> throughput) {
        List<String> names = new ArrayList<>(p50.keySet());
        throughput.keySet().stream().filter((name) -> !names.contains(name)).forEach(names::add);
        System.out.println();
        System.out.println("Summary (×GET = ratio to the GET of the same ε group, measured just before it; GET and PING"
                + " do not depend on ε; latency: lower is better, throughput: higher is better)");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-26s %10s %6s %10s", "kind",
                "p50 ns", "×GET", "p99 ns"));
        for (int threads : threadCounts) {
            header.append(String.format(Locale.ROOT, " %12s %6s", "ops/s " + threads + "t", "×GET"));
        }
        System.out.println(header);
        for (String name : names) {
            String get = NativeKind.GET.name() + name.substring(name.indexOf(' '));
            Map<Integer, Double> getThroughput = throughput.getOrDefault(get, Map.of());
            Double getP50 = p50.get(get);
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-26s %10s %6s %10s", name,
                    number(p50.get(name)), ratio(p50.get(name), getP50), number(p99.get(name))));
            Map<Integer, Double> scores = throughput.getOrDefault(name, Map.of());
            for (int threads : threadCounts) {
                row.append(String.format(Locale.ROOT, " %12s %6s", number(scores.get(threads)),
                        ratio(scores.get(threads), getThroughput.get(threads))));
            }
            System.out.println(row);
        }
    }

    private static String number(Double value) {
        return (value == null) ? "-" : String.format(Locale.ROOT, "%.0f", value);
    }

    private static String ratio(Double value, Double base) {
        return (value == null || base == null) ? "-" : String.format(Locale.ROOT, "%.2f", value / base);
    }

    static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter((line) -> line.startsWith("model name"))
                .map((line) -> line.substring(line.indexOf(':') + 1).strip())
                .findFirst()
                .orElse("unknown");
        }
        catch (IOException ex) {
            return "unknown (" + ex.getMessage() + ")";
        }
    }

}
