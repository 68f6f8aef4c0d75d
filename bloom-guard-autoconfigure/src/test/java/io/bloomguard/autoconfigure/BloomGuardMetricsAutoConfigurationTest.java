package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Actuator's metrics (a {@code MeterRegistry}), every filter publishes its meters through Spring Boot's own
 * binding, and they move as guarded calls are made; without Micrometer or without a registry, nothing is added.
 */
class BloomGuardMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class,
                    BloomGuardMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=100",
                    "bloom-guard.filters.skus.expected-size=100", "bloom-guard.filters.skus.mode=shadow",
                    "bloom-guard.filters.orders.expected-size=100", "bloom-guard.filters.orders.mode=off")
            .withBean("users", BloomKeySource.class, () -> BloomKeySource.of("users", () -> Stream.of(1L, 2L, 3L)))
            .withBean("skus", BloomKeySource.class, () -> BloomKeySource.of("skus", Stream::of))
            .withBean("orders", BloomKeySource.class, () -> BloomKeySource.of("orders", Stream::of))
            .withBean(Lookups.class);

    @Test
    void everyFilterPublishesEveryMeterWithItsTags() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(BloomFilterMetrics.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            for (String filter : List.of("users", "skus", "orders")) {
                assertThat(namesOf(meters, filter)).as(filter).containsExactlyInAnyOrder("bloomguard.checks",
                        "bloomguard.false.positives", "bloomguard.shadow.rejections",
                        "bloomguard.shadow.false.negatives", "bloomguard.backend.errors", "bloomguard.puts",
                        "bloomguard.elements", "bloomguard.capacity.ratio", "bloomguard.over.capacity",
                        "bloomguard.rebuild.held", "bloomguard.fill.ratio",
                        "bloomguard.fpp.expected", "bloomguard.fpp.measured", "bloomguard.fpp.configured",
                        "bloomguard.state", "bloomguard.load", "bloomguard.load.keys",
                        "bloomguard.load.last.success.time", "bloomguard.local.size");
                assertThat(meters.find("bloomguard.checks").tag("filter", filter).meters())
                        .extracting(meter -> meter.getId().getTag("outcome") + "/" + meter.getId().getTag("reason"))
                        .containsExactlyInAnyOrder("rejected/none", "passed/none", "skipped/not_ready",
                                "skipped/mode_off", "skipped/no_key", "skipped/backend_failure",
                                "skipped/write_pending");
                assertThat(meters.find("bloomguard.state").tag("filter", filter).meters())
                        .extracting(meter -> meter.getId().getTag("state"))
                        .containsExactlyInAnyOrder("loading", "ready", "failed", "disabled", "mismatched", "stale",
                                "access_denied", "unreachable");
                assertThat(meters.find("bloomguard.load").tag("filter", filter).timers())
                        .extracting(timer -> timer.getId().getTag("kind") + "/" + timer.getId().getTag("outcome"))
                        .containsExactlyInAnyOrder("preload/success", "preload/failure", "rebuild/success",
                                "rebuild/failure");
            }
            assertThat(meters.find("bloomguard.redis.check").meters()).as("local filters only").isEmpty();
            assertThat(meters.find("bloomguard.redis.breaker.open").meters()).as("local filters only").isEmpty();
            assertThat(meters.get("bloomguard.fpp.configured").tag("filter", "users").gauge().value()).isEqualTo(0.01);
        });
    }

    @Test
    void metersMoveAsCallsAreChecked() {
        runner.withUserConfiguration(FixedSeedFilters.class).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Lookups lookups = context.getBean(Lookups.class);
            assertThat(state(meters, "users", "loading")).isEqualTo(1.0);
            assertThat(lookups.user(999L)).as("not loaded yet: passes unchecked").isEmpty();
            assertThat(checks(meters, "users", "skipped", "not_ready")).isEqualTo(1.0);

            context.getBean(FilterPreloader.class).preloadAll();
            assertThat(state(meters, "users", "loading")).isZero();
            assertThat(state(meters, "users", "ready")).isEqualTo(1.0);
            Timer preload = meters.get("bloomguard.load").tags("filter", "users", "kind", "preload", "outcome", "success")
                    .timer();
            assertThat(preload.count()).isEqualTo(1);
            assertThat(meters.get("bloomguard.load.keys").tags("filter", "users", "kind", "preload", "outcome", "success")
                    .summary().totalAmount()).isEqualTo(3.0);

            assertThat(lookups.user(2L)).isPresent();
            assertThat(lookups.user(999_999L)).isEmpty();
            assertThat(lookups.user(888_888L)).isEmpty();
            NamedBloomFilter users = context.getBean(BloomFilterRegistry.class).get("users");
            users.put(500L); // a key the database does not have: the next lookup of it is a false positive
            assertThat(lookups.user(500L)).isEmpty();
            assertThat(lookups.user(null)).isEmpty();
            assertThat(checks(meters, "users", "passed", "none")).isEqualTo(2.0);
            assertThat(checks(meters, "users", "rejected", "none")).isEqualTo(2.0);
            assertThat(checks(meters, "users", "skipped", "no_key")).isEqualTo(1.0);
            assertThat(counter(meters, "bloomguard.false.positives", "users")).isEqualTo(1.0);
            assertThat(counter(meters, "bloomguard.puts", "users")).isEqualTo(1.0);
            assertThat(gauge(meters, "bloomguard.fpp.measured", "users")).isEqualTo(1.0 / 3);
            assertThat(gauge(meters, "bloomguard.elements", "users")).isEqualTo(users.approximateElementCount())
                    .isBetween(3.0, 5.0);
            assertThat(gauge(meters, "bloomguard.capacity.ratio", "users"))
                    .isEqualTo(users.approximateElementCount() / 100.0);
            assertThat(gauge(meters, "bloomguard.over.capacity", "users")).isZero();
            // 4 keys of k = 7 bits each in 2 blocks of 512 bits: at most 28 bits. Probes that fall on a bit already set
            // number C(28, 2) / 1024 = 0.37 on average (0.74 when all four keys share a block), so fewer than 3
            // in 99% of seeds; FixedSeedFilters.SEED's filter loses one.
            assertThat(users.hashCount()).isEqualTo(7);
            assertThat(users.bitSize()).isEqualTo(1024);
            assertThat(gauge(meters, "bloomguard.fill.ratio", "users")).as("the bits set, of all bits")
                    .isEqualTo(users.fillRatio())
                    .isBetween((4.0 * users.hashCount() - 2) / users.bitSize(),
                            4.0 * users.hashCount() / users.bitSize());
            assertThat(gauge(meters, "bloomguard.fpp.expected", "users")).isEqualTo(users.expectedFpp()).isPositive();

            assertThat(lookups.sku(7L)).as("shadow mode: the method runs").contains("sku 7");
            assertThat(counter(meters, "bloomguard.shadow.rejections", "skus")).isEqualTo(1.0);
            assertThat(counter(meters, "bloomguard.shadow.false.negatives", "skus")).isEqualTo(1.0);
            assertThat(checks(meters, "skus", "rejected", "none")).as("shadow mode rejects nothing").isZero();

            lookups.order(1L);
            assertThat(checks(meters, "orders", "skipped", "mode_off")).isEqualTo(1.0);
        });
    }

    /** Even beside a registry bean (which alone would let it in), Micrometer's absence keeps the binder out. */
    @Test
    void backsOffWithoutMicrometer() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class,
                        BloomGuardMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .withPropertyValues("bloom-guard.filters.users.expected-size=100")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BloomFilterMetrics.class)
                        .hasSingleBean(BloomFilterRegistry.class));
    }

    @Test
    void backsOffWithoutAMeterRegistry() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class,
                        BloomGuardMetricsAutoConfiguration.class))
                .withPropertyValues("bloom-guard.filters.users.expected-size=100")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BloomFilterMetrics.class));
    }

    @Test
    void anApplicationsOwnBinderReplacesIt() {
        BloomFilterMetrics own = new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of()));
        runner.withBean(BloomFilterMetrics.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed().getBean(BloomFilterMetrics.class).isSameAs(own);
            assertThat(context.getBean(MeterRegistry.class).find("bloomguard.checks").meters()).isEmpty();
        });
    }

    private static Set<String> namesOf(MeterRegistry meters, String filter) {
        return meters.getMeters().stream().filter(meter -> meter.getId().getTags().contains(Tag.of("filter", filter)))
                .map(Meter::getId).map(Meter.Id::getName).collect(Collectors.toSet());
    }

    private static double checks(MeterRegistry meters, String filter, String outcome, String reason) {
        return meters.get("bloomguard.checks").tags("filter", filter, "outcome", outcome, "reason", reason)
                .functionCounter().count();
    }

    private static double counter(MeterRegistry meters, String name, String filter) {
        return meters.get(name).tag("filter", filter).functionCounter().count();
    }

    private static double gauge(MeterRegistry meters, String name, String filter) {
        return meters.get(name).tag("filter", filter).gauge().value();
    }

    private static double state(MeterRegistry meters, String filter, String state) {
        return meters.get("bloomguard.state").tags("filter", filter, "state", state).gauge().value();
    }

    /** Guarded lookups: user ids below 100 exist, every sku exists, orders are never checked. */
    static class Lookups {

        @BloomGuarded(filter = "users")
        public Optional<String> user(Long id) {
            return (id != null && id < 100) ? Optional.of("user " + id) : Optional.empty();
        }

        @BloomGuarded(filter = "skus")
        public Optional<String> sku(Long id) {
            return Optional.of("sku " + id);
        }

        @BloomGuarded(filter = "orders")
        public Optional<String> order(Long id) {
            return Optional.empty();
        }
    }
}
