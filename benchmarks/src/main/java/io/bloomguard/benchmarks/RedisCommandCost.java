package io.bloomguard.benchmarks;

import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.testsupport.redis.RedisServerBinary;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each kind of check costs Redis, from the server's own counters: commands per check from
 * {@code INFO commandstats} call deltas ({@code CONFIG RESETSTAT} before each kind), Redis time per check from
 * their {@code usec}, and the server main thread's CPU time per check from {@code INFO cpu} (which also counts
 * reading and writing the sockets, unlike {@code usec_per_call}). Same filters, keys and probes as
 * {@link RedisFilterBenchmark}, one thread, one op at a time. Each kind runs in 5 rounds taken in turns with
 * the other kinds (loopback latency drifts over tens of seconds on a shared VM), with {@code CONFIG RESETSTAT}
 * before each round.
 *
 * <p>Which commands a client sent and which a script ran (Redis counts both in {@code commandstats}; a
 * script's time includes its commands' time, so only client commands are added up) is read from a few ops
 * watched with {@code MONITOR} through {@code redis-cli} (next to {@code redis-server}, or
 * {@code -Dredis.cli=PATH}).
 *
 * <p>Run: {@code java -Xmx2g -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.RedisCommandCost
 * [singleOps [batchOps]]} (defaults 20,000 and 200 batches of 1,000 keys).
 */
public final class RedisCommandCost {

    static final String CLI = System.getProperty("redis.cli",
            RedisServerBinary.path().resolveSibling("redis-cli").toString());

    private static final Pattern STAT = Pattern.compile(
            "cmdstat_([^:]+):calls=(\\d+),usec=(\\d+),usec_per_call=([0-9.]+)");

    private static final Pattern MONITOR_LINE = Pattern.compile("^[0-9.]+ \\[\\d+ ([^\\]]+)\\] \"([^\"]+)\"");

    private static final Set<String> ADMIN = Set.of("info", "config|resetstat");

    private RedisCommandCost() {
    }

    private record Kind(String name, int keysPerOp, int ops, Runnable op) {
    }

    private record Stat(long calls, long usec, double usecPerCall) {
    }

    private record Round(int ops, Map<String, Stat> stats, double cpuSeconds, long wallNanos) {
    }

    /** Rounds per kind, taken in turns. */
    private static final int ROUNDS = 5;

    public static void main(String[] args) throws Exception {
        int singleOps = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int batchOps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int batch = RedisFilterBenchmark.BATCH;
        Object[] probes = RedisFixtures.probes(RedisFilterBenchmark.PROBES);
        List<List<Object>> batches = RedisFixtures.batches(probes, batch, RedisFilterBenchmark.BATCHES);
        int mask = probes.length - 1;
        try (RedisServerProcess server = RedisServerProcess.start()) {
            RedisClient client = RedisFixtures.lettuce(server);
            StatefulRedisConnection<String, String> admin = client.connect();
            StatefulRedisConnection<byte[], byte[]> plain = client.connect(ByteArrayCodec.INSTANCE);
            RedisFilterBackend backend = RedisFixtures.backend(client);
            RedissonClient redisson = RedisFixtures.redisson(server);
            try {
                List<Object> present = RedisFixtures.presentKeys(RedisFixtures.N);
                RedisBloomFilter ours = RedisFixtures.loadedBloomGuard(backend, "cost", RedisFixtures.N, present);
                RBloomFilter<Object> theirs = RedisFixtures.loadedRedisson(redisson, "redisson-cost", RedisFixtures.N,
                        present);
                byte[] value = new byte[64];
                Arrays.fill(value, (byte) 'x');
                plain.sync().set(RedisFilterBenchmark.GET_KEY, value);
                int[] next = {0};
                List<Kind> kinds = List.of(
                        new Kind("bloom-guard mightContain", 1, singleOps,
                                () -> ours.mightContain(probes[next[0]++ & mask])),
                        new Kind("bloom-guard mightContainAll", batch, batchOps,
                                () -> ours.mightContainAll(batches.get(next[0]++ & (batches.size() - 1)))),
                        new Kind("Redisson contains", 1, singleOps,
                                () -> theirs.contains(probes[next[0]++ & mask])),
                        new Kind("Redisson contains(Collection)", batch, batchOps,
                                () -> theirs.contains(castList(batches.get(next[0]++ & (batches.size() - 1))))),
                        new Kind("GET (64 B value)", 1, singleOps, () -> plain.sync().get(RedisFilterBenchmark.GET_KEY)),
                        new Kind("PING", 1, singleOps, () -> plain.sync().ping()));
                System.out.printf(Locale.ROOT, "redis-server %s on port %d; n = %,d, ε = %s; one thread, one op at a"
                        + " time; batch = %,d keys%n%n", admin.sync().info("server").lines()
                        .filter(line -> line.startsWith("redis_version:")).findFirst().orElse("?").substring(14),
                        server.port(), RedisFixtures.N, RedisFixtures.FPP, batch);
                Map<Kind, Map<String, Boolean>> fromClient = new LinkedHashMap<>();
                for (Kind kind : kinds) {
                    for (int i = 0; i < Math.max(100, kind.ops / 10); i++) { // warm up the JIT and the connections
                        kind.op.run();
                    }
                    fromClient.put(kind, watch(server.port(), kind, 5));
                }
                // Loopback round trips here drift by 2× over tens of seconds: the kinds take turns, a round each.
                Map<Kind, List<Round>> rounds = new LinkedHashMap<>();
                RedisCommands<String, String> sync = admin.sync();
                for (int round = 0; round < ROUNDS; round++) {
                    for (Kind kind : kinds) {
                        int ops = kind.ops / ROUNDS;
                        sync.configResetstat();
                        double cpuBefore = mainThreadCpu(sync.info("cpu"));
                        long start = System.nanoTime();
                        for (int i = 0; i < ops; i++) {
                            kind.op.run();
                        }
                        long wall = System.nanoTime() - start;
                        Map<String, Stat> stats = commandStats(sync.info("commandstats"));
                        double cpu = mainThreadCpu(sync.info("cpu")) - cpuBefore;
                        rounds.computeIfAbsent(kind, k -> new ArrayList<>()).add(new Round(ops, stats, cpu, wall));
                    }
                }
                List<String> table = new ArrayList<>();
                for (Kind kind : kinds) {
                    table.add(row(kind, rounds.get(kind), fromClient.get(kind)));
                }
                System.out.printf(Locale.ROOT, "%-30s %7s %12s %12s %10s %12s %23s %23s%n", "kind", "keys/op",
                        "client cmd/op", "script cmd/op", "usec/call", "usec/check", "CPU us/check (min-max)",
                        "wall us/op (min-max)");
                table.forEach(System.out::print);
                System.out.println("""

                        client cmd/op: commands the client sent per op (a round trip each for a single check, all \
                        pipelined for a batch), from commandstats calls;
                        script cmd/op: commands run inside scripts per op (counted by commandstats too, their time \
                        is part of the script's);
                        usec/call: commandstats usec_per_call of the client command(s); usec/check: Redis time per \
                        key checked (client commands' usec / keys);
                        CPU us/check: redis-server main thread CPU (INFO cpu, user + sys) per key checked, including \
                        socket I/O and event loop: median of the rounds (min-max);
                        wall us/op: this client's mean time per op, one at a time: median of the rounds (min-max); \
                        not a benchmark, see RedisFilterBenchmark.
                        Each kind ran in %d rounds taken in turns with the other kinds; commandstats are summed over \
                        them.""".formatted(ROUNDS));
            }
            finally {
                redisson.shutdown();
                backend.close();
                plain.close();
                admin.close();
                client.shutdown();
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<Object> castList(List<Object> keys) {
        return (List) keys;
    }

    private static String row(Kind kind, List<Round> rounds, Map<String, Boolean> fromClient) {
        long ops = 0;
        Map<String, Stat> stats = new LinkedHashMap<>();
        for (Round round : rounds) {
            ops += round.ops;
            round.stats.forEach((name, stat) -> stats.merge(name, stat, (a, b) -> new Stat(a.calls + b.calls,
                    a.usec + b.usec, 0)));
        }
        long keys = ops * kind.keysPerOp;
        long clientCalls = 0;
        long scriptCalls = 0;
        long clientUsec = 0;
        StringBuilder detail = new StringBuilder();
        for (Map.Entry<String, Stat> entry : stats.entrySet()) {
            String name = entry.getKey();
            Stat stat = entry.getValue();
            // Not seen under MONITOR (e.g. a client's keep-alive PING): a client command.
            boolean client = fromClient.getOrDefault(name, true);
            if (client) {
                clientCalls += stat.calls;
                clientUsec += stat.usec;
            }
            else {
                scriptCalls += stat.calls;
            }
            detail.append(String.format(Locale.ROOT, "    %-26s %-7s calls/op %9.3f  usec_per_call %8.2f%n", name,
                    client ? "client" : "script", (double) stat.calls / ops, (double) stat.usec / stat.calls));
        }
        double[] cpu = rounds.stream().mapToDouble(round -> round.cpuSeconds * 1e6 / (round.ops * kind.keysPerOp))
                .sorted().toArray();
        double[] wall = rounds.stream().mapToDouble(round -> round.wallNanos / 1e3 / round.ops).sorted().toArray();
        return String.format(Locale.ROOT, "%-30s %7d %12.3f %12.1f %10.2f %12.3f %8.2f (%5.2f-%5.2f) %8.1f (%5.1f-%5.1f)%n",
                kind.name, kind.keysPerOp, (double) clientCalls / ops, (double) scriptCalls / ops,
                (double) clientUsec / clientCalls, (double) clientUsec / keys, cpu[cpu.length / 2], cpu[0],
                cpu[cpu.length - 1], wall[wall.length / 2], wall[0], wall[wall.length - 1]) + detail;
    }

    /**
     * Runs {@code ops} ops of a kind under {@code MONITOR}: for each command name seen, whether a client sent
     * it ({@code true}) or a script ran it ({@code false}).
     */
    private static Map<String, Boolean> watch(int port, Kind kind, int ops) throws IOException, InterruptedException {
        Process monitor = new ProcessBuilder(CLI, "-h", "127.0.0.1", "-p", Integer.toString(port), "monitor")
                .redirectErrorStream(true).start();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        Set<String> unparsed = new LinkedHashSet<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(monitor.getInputStream(),
                StandardCharsets.UTF_8))) {
            String first = out.readLine();
            if (!"OK".equals(first)) {
                throw new IllegalStateException(CLI + " monitor answered " + first);
            }
            for (int i = 0; i < ops; i++) {
                kind.op.run();
            }
            // A marker that the monitor has shown every command sent before it.
            try (RedisClient marker = RedisClient.create("redis://127.0.0.1:" + port);
                    StatefulRedisConnection<String, String> connection = marker.connect()) {
                connection.sync().echo("bloom-guard-cost-marker");
            }
            for (String line; (line = out.readLine()) != null; ) {
                if (line.contains("bloom-guard-cost-marker")) {
                    break;
                }
                Matcher matcher = MONITOR_LINE.matcher(line);
                if (matcher.find()) {
                    String name = matcher.group(2).toLowerCase(Locale.ROOT);
                    boolean client = !matcher.group(1).equals("lua");
                    seen.merge(name, client, Boolean::logicalOr);
                }
                else {
                    unparsed.add(line);
                }
            }
        }
        finally {
            monitor.destroy();
            monitor.waitFor(5, TimeUnit.SECONDS);
        }
        if (!unparsed.isEmpty()) {
            System.err.println("unparsed MONITOR lines: " + unparsed);
        }
        return seen;
    }

    static Map<String, Stat> commandStats(String info) {
        Map<String, Stat> stats = new LinkedHashMap<>();
        Matcher matcher = STAT.matcher(info);
        while (matcher.find()) {
            if (!ADMIN.contains(matcher.group(1))) {
                stats.put(matcher.group(1), new Stat(Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3)),
                        Double.parseDouble(matcher.group(4))));
            }
        }
        return stats;
    }

    /** Seconds of CPU of the server's main thread (user + sys); all threads where the server lacks that field. */
    static double mainThreadCpu(String info) {
        Map<String, Double> fields = new LinkedHashMap<>();
        info.lines().map(line -> line.split(":", 2)).filter(parts -> parts.length == 2).forEach(parts -> {
            try {
                fields.put(parts[0], Double.parseDouble(parts[1].trim()));
            }
            catch (NumberFormatException ignored) {
                // not a number
            }
        });
        if (fields.containsKey("used_cpu_user_main_thread")) {
            return fields.get("used_cpu_user_main_thread") + fields.get("used_cpu_sys_main_thread");
        }
        return fields.get("used_cpu_user") + fields.get("used_cpu_sys");
    }
}
