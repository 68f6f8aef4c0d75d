package io.bloomguard.benchmarks;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.RedisBackendSettings;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisBreakerSettings;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What keeping up with another instance's adds costs a near copy, from the server's own counters: one instance adds
 * new keys at a steady rate, the other checks each of them once right after it was added (the worst case for a copy:
 * every new key is read here, none was read before) and as many existing keys besides. Run once with a plain redis
 * filter on the checking instance and once with a near copy: {@code GETRANGE} calls per second from
 * {@code INFO commandstats}, and what Redis sent to all clients per second ({@code total_net_output_bytes}).
 * Refresh interval 1 s, as by default; the run is shorter than the copy's whole re-read (600 refreshes), whose cost
 * (the bitmap once per 10 minutes) is printed apart.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.NearCopyCatchUpCost
 * [addsPerSecond [seconds]]} (defaults 1,000 and 20).
 */
public final class NearCopyCatchUpCost {

    private static final Pattern GETRANGE = Pattern.compile("cmdstat_getrange:calls=(\\d+)");

    private static final Pattern OUTPUT = Pattern.compile("total_net_output_bytes:(\\d+)");

    private static final int TICKS_PER_SECOND = 10;

    private NearCopyCatchUpCost() {
    }

    public static void main(String[] args) {
        int rate = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
        int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 20;
        List<Object> present = RedisFixtures.presentKeys(RedisFixtures.N);
        FilterSizing sizing = FilterSizing.of(RedisFixtures.N, RedisFixtures.FPP);
        System.out.printf(Locale.ROOT, "n = %d, ε = %s, bitmap %d KiB; %d adds/s on one instance, each checked once on"
                + " the other, plus %d checks/s of existing keys there; %d s%n", RedisFixtures.N, RedisFixtures.FPP,
                sizing.byteSize() / 1024, rate, rate, seconds);
        System.out.printf(Locale.ROOT, "%-12s %12s %14s %14s%n", "checker", "GETRANGE/s", "output B/s", "checks/s");
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            RedisClient client = RedisFixtures.lettuce(redis);
            try (StatefulRedisConnection<String, String> admin = client.connect()) {
                for (boolean nearCopy : new boolean[] { false, true }) {
                    run(client, admin.sync(), present, rate, seconds, nearCopy);
                }
            }
            finally {
                client.shutdown();
            }
        }
        System.out.printf(Locale.ROOT, "near copy, whole re-read every 600 refreshes (10 min): %.0f B/s per instance%n",
                sizing.byteSize() / 600.0);
    }

    private static void run(RedisClient client, RedisCommands<String, String> admin, List<Object> present, int rate,
            int seconds, boolean nearCopy) {
        String name = nearCopy ? "catch-up-near" : "catch-up";
        try (RedisFilterBackend writing = new RedisFilterBackend(() -> LettuceRedisPort.connect(client), settings());
                RedisFilterBackend checking = new RedisFilterBackend(() -> LettuceRedisPort.connect(client),
                        settings())) {
            RedisBloomFilter writer = RedisFixtures.loadedBloomGuard(writing, name, RedisFixtures.N, present);
            RedisBloomFilter checker = checking.create(name, writer.sizing(), RedisFixtures.SEED, 1,
                    AddFailurePolicy.BUFFER, nearCopy);
            checker.follow();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (nearCopy && !checker.details().nearCopy().answering() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            SplittableRandom random = new SplittableRandom(7);
            int perTick = rate / TICKS_PER_SECOND;
            long next = RedisFixtures.N;
            admin.configResetstat();
            long outputBefore = counter(OUTPUT, admin.info("stats"));
            long start = System.nanoTime();
            long checks = 0;
            for (int tick = 0; tick < seconds * TICKS_PER_SECOND; tick++) {
                List<Object> added = new ArrayList<>(perTick);
                for (int i = 0; i < perTick; i++) {
                    added.add(BenchmarkKeys.LONG.present(next++));
                }
                writer.putAll(added);
                for (Object key : added) {
                    check(checker, key);
                    check(checker, present.get(random.nextInt(present.size())));
                    checks += 2;
                }
                LockSupport.parkNanos(start + (tick + 1) * 1_000_000_000L / TICKS_PER_SECOND - System.nanoTime());
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            long getRanges = counter(GETRANGE, admin.info("commandstats"));
            long output = counter(OUTPUT, admin.info("stats")) - outputBefore;
            System.out.printf(Locale.ROOT, "%-12s %12.0f %14.0f %14.0f%n", nearCopy ? "near copy" : "plain",
                    getRanges / elapsed, output / elapsed, checks / elapsed);
        }
    }

    private static void check(RedisBloomFilter checker, Object key) {
        if (!checker.mightContain(key)) {
            throw new IllegalStateException("false negative for " + key);
        }
    }

    private static long counter(Pattern pattern, String info) {
        Matcher matcher = pattern.matcher(info);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    /** {@link RedisFixtures#settings()} with the default refresh interval, 1 s. */
    private static RedisBackendSettings settings() {
        RedisBackendSettings fixtures = RedisFixtures.settings();
        return new RedisBackendSettings(fixtures.keyPrefix(), fixtures.checkTimeout(), fixtures.commandTimeout(),
                RedisBreakerSettings.defaults(), fixtures.lockTtl(), Duration.ofSeconds(1), fixtures.pendingAddsLimit(),
                fixtures.rebuildGrace(), fixtures.probeInterval(), fixtures.reconnectDelay());
    }
}
