package io.bloomguard.preload;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.OwnThread;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No rebuild drops a key that exists on a local filter, whoever asks for it: a filter filled by puts alone is never
 * rebuilt (it grows by layers), and a rebuild that reads far fewer keys than the filter holds is held back and
 * reported until an operator confirms it. Run by a real SpringApplication; keys are put as a deduplicating service
 * puts them.
 */
@Timeout(120)
class RebuildSafetyTest {

    private static final double ERROR_RATE = 0.01;

    @Test
    void aFilterFilledByPutsAloneGrowsByLayersAndRefusesEveryRebuild() {
        // 10,000 keys a filter: layers of hundreds of blocks, whose false-positive rate varies little with the hash seed.
        try (ConfigurableApplicationContext context = run(NoSources.class, "--bloom-guard.filters.seen.puts-only=true",
                "--bloom-guard.filters.seen.expected-size=10000")) {
            NamedBloomFilter seen = filter(context, "seen");
            assertThat(seen.spec().sizing().growth()).as("growth: rebuild inherited becomes scale").isEqualTo(GrowthPolicy.SCALE);
            assertThat(seen.state()).isEqualTo(FilterState.READY);
            LongStream.range(0, 30_000).forEach(seen::put);

            assertThat(seen.layerCount()).as("grown by layers past its expected size").isGreaterThan(1);
            assertThat(LongStream.range(0, 30_000).filter(key -> !seen.mightContain(key)).count()).as("rejected")
                    .isZero();
            assertThatThrownBy(seen::rebuild).isInstanceOf(RebuildRefusedException.class).hasMessageContaining(
                    "filled by puts alone");
            assertThatThrownBy(seen::confirmRebuild).isInstanceOf(RebuildRefusedException.class);
            BloomFiltersEndpoint endpoint = new BloomFiltersEndpoint(context.getBean(BloomFilterRegistry.class));
            assertThatThrownBy(() -> endpoint.act("seen", "rebuild", null, null, SecurityContext.NONE)).isInstanceOf(
                    RebuildRefusedException.class);
            assertThat(LongStream.range(0, 30_000).filter(key -> !seen.mightContain(key)).count()).isZero();
            assertThat(seen.state()).isEqualTo(FilterState.READY);
            // Layers of n·2^i keys at ε·2^-(i+1): together at most ε, about 0.7·ε at 3n (docs' growth table).
            assertThat(absentShare(seen)).as("it still rejects absent keys").isLessThanOrEqualTo(ERROR_RATE);
        }
    }

    @Test
    void aFilterFilledByPutsAloneRefusesEverySettingThatWouldRebuildIt() {
        assertStartupRefused(NoSources.class, "bloom-guard.filters.seen.preload.sql", "--bloom-guard.filters.seen"
                + ".puts-only=true", "--bloom-guard.filters.seen.preload.sql=SELECT 1");
        assertStartupRefused(NoSources.class, "bloom-guard.filters.seen.rebuild.cron",
                "--bloom-guard.filters.seen.puts-only=true", "--bloom-guard.filters.seen.rebuild.cron=0 0 4 * * *");
        assertStartupRefused(NoSources.class, "bloom-guard.filters.seen.growth",
                "--bloom-guard.filters.seen.puts-only=true", "--bloom-guard.filters.seen.growth=rebuild");
        assertStartupRefused(EmptySource.class, "puts-only: true", "--bloom-guard.filters.seen.puts-only=true");
    }

    /**
     * Declared as the docs once said, with a key source that yields nothing: growth and an explicit rebuild read no
     * keys, and neither replaces the 3,000 the filter holds. It says so, and keeps guarding.
     */
    @Test
    void aRebuildFromASourceThatReadsNothingIsHeldBackAndReported() {
        try (ConfigurableApplicationContext context = run(EmptySource.class,
                "--bloom-guard.filters.seen.expected-size=1000")) {
            NamedBloomFilter seen = filter(context, "seen");
            LongStream.range(0, 3_000).forEach(seen::put);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> seen.heldRebuild() != null
                    && !seen.growing());

            assertThat(seen.heldRebuild().keysRead()).isZero();
            assertThat(LongStream.range(0, 3_000).filter(key -> !seen.mightContain(key)).count()).as("rejected")
                    .isZero();
            assertThatThrownBy(seen::rebuild).isInstanceOf(RebuildRefusedException.class)
                    .hasMessageContaining("confirm-rebuild");
            assertThat(LongStream.range(0, 3_000).filter(key -> !seen.mightContain(key)).count()).isZero();
            assertThat(seen.state()).isEqualTo(FilterState.READY);
            Health health = new BloomFilterHealthIndicator(seen).health();
            assertThat(health.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(health.getDetails().get("reasons").toString()).contains("read 0 keys")
                    .contains("confirm-rebuild");
            BloomFiltersEndpoint endpoint = new BloomFiltersEndpoint(context.getBean(BloomFilterRegistry.class));
            assertThat(endpoint.filter("seen").heldRebuild()).isNotNull();
        }
    }

    /** A real mass delete: held back at first, swapped in once confirmed, and the deleted keys drop out. */
    @Test
    void aHeldBackRebuildIsSwappedInOnceAnOperatorConfirmsIt() {
        Rows.ids.clear();
        LongStream.range(0, 2_000).forEach(Rows.ids::add);
        try (ConfigurableApplicationContext context = run(RowsSource.class,
                "--bloom-guard.filters.rows.expected-size=10000")) {
            NamedBloomFilter rows = filter(context, "rows");
            assertThat(rows.state()).isEqualTo(FilterState.READY);
            LongStream.range(500, 2_000).forEach(Rows.ids::remove); // three in four rows deleted

            assertThatThrownBy(rows::rebuild).isInstanceOf(RebuildRefusedException.class);
            assertThat(LongStream.range(0, 2_000).filter(key -> !rows.mightContain(key)).count()).as("rejected")
                    .isZero();

            BloomFiltersEndpoint endpoint = new BloomFiltersEndpoint(context.getBean(BloomFilterRegistry.class));
            BloomFiltersEndpoint.RebuildDescriptor refused = finished(endpoint, "rows", "rebuild");
            assertThat(refused.state()).isEqualTo("failed");
            assertThat(refused.error()).contains("confirm-rebuild");
            assertThat(rows.heldRebuild()).isNotNull();
            assertThat(new BloomFilterHealthIndicator(rows).health().getStatus())
                    .isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            new BloomFilterMetrics(context.getBean(BloomFilterRegistry.class)).bindTo(meters);
            Gauge held = meters.get("bloomguard.rebuild.held").tag("filter", "rows").gauge();
            assertThat(held.value()).isEqualTo(1);

            BloomFiltersEndpoint.RebuildDescriptor confirmed = finished(endpoint, "rows", "confirm-rebuild");

            assertThat(confirmed.state()).isEqualTo("succeeded");
            assertThat(confirmed.keys()).isEqualTo(500);
            assertThat(rows.heldRebuild()).isNull();
            assertThat(held.value()).isZero();
            assertThat(new BloomFilterHealthIndicator(rows).health().getStatus()).isEqualTo(
                    org.springframework.boot.health.contributor.Status.UP);
            assertThat(LongStream.range(0, 500).filter(key -> !rows.mightContain(key)).count()).isZero();
            assertThat(LongStream.range(500, 2_000).filter(key -> !rows.mightContain(key)).count())
                    .as("deleted keys drop out (at ε = 1%, about 1,500 of 1,500)").isGreaterThan(1_400);
        }
    }

    /**
     * A confirmation binds to the rebuild it runs: refused because another rebuild was under way, it confirms
     * nothing, and a later rebuild that reads too few keys (a broken key source, every row still there) is held
     * back as ever.
     */
    @Test
    void aConfirmationRefusedWhileARebuildRunsConfirmsNoLaterRebuild() throws Exception {
        Rows.ids.clear();
        LongStream.range(0, 2_000).forEach(Rows.ids::add);
        try (ConfigurableApplicationContext context = run(RowsSource.class,
                "--bloom-guard.filters.rows.expected-size=10000")) {
            NamedBloomFilter rows = filter(context, "rows");
            assertThat(rows.state()).isEqualTo(FilterState.READY);
            CountDownLatch release = new CountDownLatch(1);
            Rows.blockReads(release);
            CompletableFuture<Long> running = OwnThread.supply(rows::rebuild);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(Rows::blocked);

            assertThatThrownBy(rows::confirmRebuild).as("refused: a rebuild is under way")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("under way");
            release.countDown();
            assertThat(running.get(30, TimeUnit.SECONDS)).isEqualTo(2_000);

            Rows.readOnly(500); // the key source breaks: a quarter of the rows, though every row is still there
            assertThatThrownBy(rows::rebuild).as("held back, not swapped in").isInstanceOf(
                    RebuildRefusedException.class).hasMessageContaining("confirm-rebuild");
            assertThat(LongStream.range(0, 2_000).filter(key -> !rows.mightContain(key)).count()).as("rejected")
                    .isZero();
            assertThat(rows.heldRebuild()).isNotNull();
        }
        finally {
            Rows.readAll();
        }
    }

    /** {@code rebuild.hold-below: 0} swaps in whatever a rebuild reads, as before. */
    @Test
    void holdBelowZeroSwapsInEveryRebuild() {
        Rows.ids.clear();
        LongStream.range(0, 2_000).forEach(Rows.ids::add);
        try (ConfigurableApplicationContext context = run(RowsSource.class,
                "--bloom-guard.filters.rows.expected-size=10000", "--bloom-guard.defaults.rebuild.hold-below=0")) {
            NamedBloomFilter rows = filter(context, "rows");
            LongStream.range(500, 2_000).forEach(Rows.ids::remove);
            assertThat(rows.rebuild()).isEqualTo(500);
            assertThat(rows.heldRebuild()).isNull();
            assertThat(LongStream.range(0, 500).filter(key -> !rows.mightContain(key)).count()).isZero();
        }
        assertStartupRefused(RowsSource.class, "bloom-guard.defaults.rebuild.hold-below",
                "--bloom-guard.filters.rows.expected-size=10000", "--bloom-guard.defaults.rebuild.hold-below=1.5");
    }

    private static void assertStartupRefused(Class<?> source, String expected, String... args) {
        assertThatThrownBy(() -> run(source, args).close()).hasStackTraceContaining(expected);
    }

    /** Share of 10⁵ keys never put that the filter lets through (fixed probes). */
    private static double absentShare(NamedBloomFilter filter) {
        SplittableRandom random = new SplittableRandom(29);
        int probes = 100_000;
        int passed = 0;
        for (int i = 0; i < probes; i++) {
            if (filter.mightContain(1_000_000_000L + random.nextLong(1L << 40))) {
                passed++;
            }
        }
        return (double) passed / probes;
    }

    /** Starts {@code action} through the endpoint (it answers at once) and polls it until it has ended. */
    private static BloomFiltersEndpoint.RebuildDescriptor finished(BloomFiltersEndpoint endpoint, String filter,
            String action) {
        String id = ((BloomFiltersEndpoint.RebuildDescriptor) endpoint.act(filter, action, null, null,
                SecurityContext.NONE)).id();
        return Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.rebuild(filter, "rebuilds", id),
                rebuild -> rebuild != null && !rebuild.state().equals("running"));
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return context.getBean(BloomFilterRegistry.class).get(name);
    }

    private static ConfigurableApplicationContext run(Class<?> source, String... args) {
        SpringApplication application = new SpringApplication(source);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(Stream.concat(Stream.of("--spring.main.banner-mode=off"), Stream.of(args))
                .toArray(String[]::new));
    }

    /** The "database" of {@link RowsSource}, and a key source that can be made to stall or to read short. */
    static final class Rows {

        static final Set<Long> ids = ConcurrentHashMap.newKeySet();

        private static volatile @Nullable CountDownLatch stall;
        private static volatile boolean blocked;
        private static volatile long limit = Long.MAX_VALUE;

        /** The next read waits for {@code release}. */
        static void blockReads(CountDownLatch release) {
            blocked = false;
            stall = release;
        }

        static boolean blocked() {
            return blocked;
        }

        static void readOnly(long rows) {
            limit = rows;
        }

        static void readAll() {
            limit = Long.MAX_VALUE;
            stall = null;
        }

        static Stream<Long> read() {
            CountDownLatch release = stall;
            if (release != null) {
                stall = null;
                blocked = true;
                try {
                    release.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
            }
            return List.copyOf(ids).stream().limit(limit);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class NoSources {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class EmptySource {

        @Bean
        BloomKeySource seenKeys() {
            return BloomKeySource.of("seen", Stream::empty);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class RowsSource {

        @Bean
        BloomKeySource rowKeys() {
            return BloomKeySource.of("rows", Rows::read);
        }
    }
}
