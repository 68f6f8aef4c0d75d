package io.bloomguard.redis;

import io.bloomguard.core.RebuildInProgressException;
import io.bloomguard.core.RebuildRefusedException;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Lookups;
import io.bloomguard.testapp.OwnThread;
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
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A rebuild that overlaps something else on a filter two instances share: a confirmation refused because another
 * instance was rebuilding confirms no later rebuild; a key lost inside a transaction still open is in the filter once a
 * rebuild begun after the commit has read its row, never made up for by one that read before.
 */
@Timeout(180)
@ExtendWith(RedisServerExtension.class)
class RedisRebuildOverlapIT {

    private static final int KEYS = 6_000;

    private static RedisServerProcess redis;

    private GuardedApplications apps;

    @BeforeAll
    static void rememberServer(RedisServerProcess server) {
        redis = server;
    }

    @BeforeEach
    void newApplications() {
        apps = new GuardedApplications("rebuild-overlap", "it");
    }

    @AfterEach
    void closeApplications() {
        apps.close();
    }

    /**
     * The key source comes back empty (a query over a table that has no such rows) while the filter holds
     * {@value #KEYS} keys. An operator's confirmation is refused because the other instance is rebuilding; the
     * next rebuild on this instance is held back as ever, and no instance rejects a key.
     */
    @Test
    void aConfirmationRefusedWhileAnotherInstanceRebuildsConfirmsNoLaterRebuild() {
        Map<String, String> emptySource = Map.of("bloom-guard.filters.seen.backend", "redis",
                "bloom-guard.filters.seen.expected-size", "10000",
                "bloom-guard.filters.seen.preload.sql", "SELECT id FROM customer WHERE id < 0");
        NamedBloomFilter first = filter(start(true, emptySource, "0s"), "seen");
        NamedBloomFilter second = filter(start(false, emptySource, "5s"), "seen");
        LongStream.range(0, KEYS).forEach(first::put);

        CompletableFuture<Long> running = OwnThread.supply(second::rebuild);
        String lock = new RedisFilterKeys(apps.keyPrefix(), "seen").lock();
        await("the second instance holds the load lock").atMost(Duration.ofSeconds(10))
                .until(() -> "1".equals(redis.command("EXISTS", lock)));
        assertThatThrownBy(first::confirmRebuild).as("refused: another instance is rebuilding")
                .isInstanceOf(RebuildInProgressException.class);
        assertThatThrownBy(running::join).as("the second instance's rebuild read nothing and is held back")
                .hasCauseInstanceOf(RebuildRefusedException.class);

        assertThatThrownBy(first::rebuild).as("held back, not swapped in as confirmed")
                .isInstanceOf(RebuildRefusedException.class).hasMessageContaining("read 0 keys");
        for (NamedBloomFilter seen : List.of(first, second)) {
            assertThat(LongStream.range(0, KEYS).filter(key -> !seen.mightContain(key)).count()).as("rejected")
                    .isZero();
        }
    }

    /**
     * Twenty customers are written in one transaction whose keys cannot be computed; the filter is marked stale
     * at once and rebuilt from a table that does not show them yet. Once the transaction commits, both instances
     * hold their keys before they trust the filter again.
     */
    @Test
    void keysLostInsideAnOpenTransactionAreInTheFilterOnceItCommitted() {
        Map<String, String> fragile = Map.of("bloom-guard.filters.fragile.backend", "redis",
                "bloom-guard.filters.fragile.preload.sql", "SELECT id FROM customer");
        ConfigurableApplicationContext writer = start(true, fragile, "0s");
        NamedBloomFilter writing = filter(writer, "fragile");
        NamedBloomFilter other = filter(start(false, fragile, "0s"), "fragile");
        Lookups lookups = writer.getBean(Lookups.class);
        Instant before = Instant.now();

        List<Long> ids = new TransactionTemplate(writer.getBean(PlatformTransactionManager.class)).execute(status -> {
            List<Long> saved = IntStream.range(0, 20).mapToObj(i -> lookups.saveWithBrokenKey("overlap-" + i)
                    .getId()).toList();
            await("the stale filter is rebuilt while the rows are not committed").atMost(Duration.ofSeconds(30))
                    .until(() -> rebuiltSince(writing, before) || rebuiltSince(other, before));
            assertThat(writing.trustedToReject()).as("not trusted while the transaction is open").isFalse();
            return saved;
        });

        await("both instances hold the committed rows' keys once they trust the filter")
                .atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    for (NamedBloomFilter filter : List.of(writing, other)) {
                        assertThat(filter.trustedToReject()).isTrue();
                        assertThat(ids).allSatisfy(id -> assertThat(filter.mightContain(id)).isTrue());
                    }
                });
    }

    private static boolean rebuiltSince(NamedBloomFilter filter, Instant since) {
        FilterHistory.Load rebuild = filter.history().lastRebuild();
        return rebuild != null && rebuild.succeeded() && rebuild.started().isAfter(since);
    }

    private ConfigurableApplicationContext start(boolean initializeDatabase, Map<String, String> overrides,
            String rebuildGrace) {
        Map<String, String> properties = new HashMap<>();
        properties.put("bloom-guard.redis.refresh-interval", "100ms");
        properties.put("bloom-guard.redis.rebuild-grace", rebuildGrace);
        properties.put("bloom-guard.redis.lock-ttl", "3s");
        properties.putAll(overrides);
        return apps.start(redis, initializeDatabase, properties);
    }

    private static NamedBloomFilter filter(ConfigurableApplicationContext context, String name) {
        return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), NamedBloomFilter.class, name);
    }
}
