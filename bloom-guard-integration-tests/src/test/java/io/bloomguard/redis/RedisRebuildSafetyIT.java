package io.bloomguard.redis;

import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * No rebuild drops a key that exists on a filter shared by two instances: one filled by puts alone grows by layers and
 * is never built again, even once marked stale; one whose key source comes back empty keeps its keys on both
 * instances, and says so.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisRebuildSafetyIT {

    private static final int KEYS = 6_000;

    /** Keys put before the store loses a filter filled by puts alone. */
    private static final long LOST = 500;

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("rebuild-safety", "it");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    @Test
    void aFilterFilledByPutsAloneGrowsByLayersOnBothInstancesAndIsNeverBuiltAgain() {
        Map<String, String> putsOnly = Map.of("bloom-guard.filters.seen.puts-only", "true");
        List<NamedBloomFilter> instances = List.of(seen(start(true, putsOnly)), seen(start(false, putsOnly)));
        assertThat(instances).allSatisfy(seen -> {
            assertThat(seen.spec().sizing().growth()).isEqualTo(GrowthPolicy.SCALE);
            assertThat(seen.state()).isEqualTo(FilterState.READY);
        });

        putOnBoth(instances);

        await("both instances read the layers").atMost(Duration.ofSeconds(10))
                .until(() -> instances.stream().allMatch(seen -> seen.layerCount() > 1));
        for (NamedBloomFilter seen : instances) {
            assertThat(rejected(seen)).as("keys rejected").isZero();
            assertThatThrownBy(seen::rebuild).isInstanceOf(RebuildRefusedException.class)
                    .hasMessageContaining("puts alone");
        }

        // A key that could not be stored: the filter is stale for every instance, and is not built again from
        // nothing (that would reject every key put so far). It lets calls through and keeps its bits.
        instances.get(0).markIncomplete("a key that could not be stored");
        await("both see it stale").atMost(Duration.ofSeconds(10))
                .until(() -> instances.stream().allMatch(seen -> seen.state() == FilterState.STALE));
        await("it stays stale, not rebuilt empty").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> instances.stream().allMatch(seen -> seen.state() == FilterState.STALE));
        for (NamedBloomFilter seen : instances) {
            assertThat(rejected(seen)).isZero();
            // A read a loaded machine times out (50 ms) is no answer: the count is taken again, whole.
            long gone = await("the stored bits read").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                    .ignoreException(RedisUnavailableException.class)
                    .until(() -> LongStream.range(0, KEYS).filter(key -> !seen.backendMightContain(key)).count(),
                            anyCount -> true);
            assertThat(gone).as("keys gone from the stored bits").isZero();
        }
    }

    /**
     * A filter filled by puts alone whose bits were deleted from Redis, its metadata kept: an instance started then
     * must not create it again empty (both instances would reject every key put so far). It waits, not ready, says
     * why, and is created again empty only once an operator confirms.
     */
    @Test
    void aFilterFilledByPutsAloneWhoseBitsAreGoneIsCreatedAgainEmptyOnlyOnceConfirmed() {
        Map<String, String> putsOnly = Map.of("bloom-guard.filters.seen.puts-only", "true");
        NamedBloomFilter first = seen(start(true, putsOnly));
        LongStream.range(0, LOST).forEach(first::put);
        String bitmaps = redis.command("KEYS", apps.keyPrefix() + "{seen}:bits:*");
        for (String bitmap : bitmaps.split("\n")) {
            redis.command("DEL", bitmap);
        }

        NamedBloomFilter second = seen(start(false, putsOnly));
        awaitWaitingForAConfirmation(List.of(first, second));

        second.confirmRebuild();
        await("created again empty, on both instances").atMost(Duration.ofSeconds(10))
                .until(() -> first.state() == FilterState.READY && second.state() == FilterState.READY);
        assertThat(second.heldRebuild()).isNull();
        second.put(LOST + 1);
        assertThat(first.mightContain(LOST + 1)).as("a key put since").isTrue();
    }

    /**
     * The same after a {@code FLUSHALL}, which wipes the metadata too: the instance that saw the filter notices the
     * loss (it does not read the missing bits as zeros), records it in Redis, and an instance started then waits for
     * the confirmation too.
     */
    @Test
    void aFilterFilledByPutsAloneIsNotCreatedAgainEmptyByAnInstanceStartedAfterAFlushall() {
        Map<String, String> putsOnly = Map.of("bloom-guard.filters.seen.puts-only", "true");
        NamedBloomFilter first = seen(start(true, putsOnly));
        LongStream.range(0, LOST).forEach(first::put);
        redis.command("FLUSHALL");
        assertThat(rejected(first, LOST)).as("keys rejected by the instance that saw it").isZero();
        await("the loss recorded in Redis").atMost(Duration.ofSeconds(5))
                .until(() -> "1".equals(redis.command("EXISTS", apps.keyPrefix() + "{seen}:meta")));

        NamedBloomFilter second = seen(start(false, putsOnly));
        awaitWaitingForAConfirmation(List.of(first, second));

        first.confirmRebuild();
        await("created again empty, on both instances").atMost(Duration.ofSeconds(10))
                .until(() -> first.state() == FilterState.READY && second.state() == FilterState.READY);
    }

    /** Neither instance trusts the filter or rejects a key put before the loss, and each says what to do. */
    private static void awaitWaitingForAConfirmation(List<NamedBloomFilter> instances) {
        await("neither instance creates it again empty").during(Duration.ofMillis(2_500))
                .atMost(Duration.ofSeconds(10)).until(() -> instances.stream()
                        .allMatch(seen -> seen.state() != FilterState.READY && rejected(seen, LOST) == 0));
        await("each says why it waits").atMost(Duration.ofSeconds(5))
                .until(() -> instances.stream().allMatch(seen -> seen.heldRebuild() != null));
        for (NamedBloomFilter seen : instances) {
            assertThat(seen.heldRebuild().describe("seen")).contains("puts alone", "confirm-rebuild");
        }
    }

    /**
     * Declared with a key source that comes back empty (a query over a table that has no such rows), the filter grows
     * past its expected size: the growth's rebuild, and explicit ones on either instance, read no keys and are held
     * back; neither instance rejects a key.
     */
    @Test
    void aRebuildFromASourceThatComesBackEmptyIsHeldBackAndNoInstanceRejectsAKey() {
        Map<String, String> emptySource = Map.of("bloom-guard.filters.seen.preload.sql",
                "SELECT id FROM customer WHERE id < 0");
        List<NamedBloomFilter> instances = List.of(seen(start(true, emptySource)), seen(start(false, emptySource)));

        putOnBoth(instances);

        await("the growth's rebuild is held back").atMost(Duration.ofSeconds(30))
                .until(() -> instances.stream().anyMatch(seen -> seen.heldRebuild() != null));
        for (NamedBloomFilter seen : instances) {
            assertThatThrownBy(seen::rebuild).isInstanceOf(RebuildRefusedException.class)
                    .hasMessageContaining("read 0 keys");
            assertThat(seen.heldRebuild()).isNotNull();
        }
        for (NamedBloomFilter seen : instances) {
            assertThat(seen.state()).isEqualTo(FilterState.READY);
            assertThat(rejected(seen)).as("keys rejected").isZero();
        }
    }

    /**
     * Redis loses the filter (restarted without persistence), and the key source comes back empty: the rebuild that
     * would bring the filter back is held to the keys it held when last counted, so no instance starts rejecting them.
     */
    @Test
    void afterRedisLostTheFilterARebuildIsHeldToTheKeysItLastCounted() {
        Map<String, String> emptySource = Map.of("bloom-guard.filters.seen.preload.sql",
                "SELECT id FROM customer WHERE id < 0", "bloom-guard.filters.seen.expected-size", "10000");
        List<NamedBloomFilter> instances = List.of(seen(start(true, emptySource)), seen(start(false, emptySource)));
        putOnBoth(instances);
        await("each instance has counted the keys").atMost(Duration.ofSeconds(10)).until(() -> instances.stream()
                .allMatch(seen -> seen.stats().estimatesAsOf() != null && seen.approximateElementCount() > KEYS / 2));

        redis.restart();

        await("the rebuild from the empty source is held back").atMost(Duration.ofSeconds(30))
                .until(() -> instances.stream().anyMatch(seen -> seen.heldRebuild() != null));
        await("no instance trusts a filter without its keys").during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5)).until(() -> instances.stream().allMatch(seen -> rejected(seen) == 0));
        assertThat(instances).allSatisfy(seen -> assertThat(seen.state()).isNotEqualTo(FilterState.READY));
    }

    /** Puts {@value #KEYS} keys, 2,000 at a time on each instance in turn (expected size 2,000). */
    private static void putOnBoth(List<NamedBloomFilter> instances) {
        for (int batch = 0; batch < KEYS / 2_000; batch++) {
            NamedBloomFilter writer = instances.get(batch % 2);
            LongStream.range(batch * 2_000L, (batch + 1) * 2_000L).forEach(writer::put);
        }
    }

    private static long rejected(NamedBloomFilter seen) {
        return rejected(seen, KEYS);
    }

    private static long rejected(NamedBloomFilter seen, long keys) {
        return LongStream.range(0, keys).filter(key -> !seen.mightContain(key)).count();
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase, Map<String, String> overrides) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.filters.seen.backend", "redis");
        properties.put("bloom-guard.filters.seen.expected-size", "2000");
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", "0s");
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.putAll(overrides);
        return apps.start(redis, initializeDatabase, properties);
    }

    private static NamedBloomFilter seen(ConfigurableApplicationContext context) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, "seen");
    }
}
