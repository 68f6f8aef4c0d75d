package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.RedisBackendSettingsBuilder;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code bloom-guard.redis.wait-for-replicas} against a real primary and a real replica ({@code replicaof}): a put
 * returns once the replica has its bits; a replica that does not answer (SIGSTOP) makes a put under
 * {@code on-add-failure: fail} fail after about the wait timeout, and one under {@code buffer} stand, counted.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class RedisReplicaWaitIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    /** Well above a replica's round trip on a loaded machine, well below the command timeout (5 s). */
    private static final Duration LONG_WAIT = Duration.ofSeconds(3);

    private static final Duration SHORT_WAIT = Duration.ofMillis(200);

    private RedisServerProcess primary;

    private RedisServerProcess replica;

    @BeforeEach
    void startPrimaryAndReplica() {
        primary = RedisServerProcess.start();
        replica = RedisServerProcess.start("--replicaof", primary.host(), String.valueOf(primary.port()));
        await("the replica in sync").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> replica.command("INFO", "replication").contains("master_link_status:up")
                        && primary.command("INFO", "replication").contains("connected_slaves:1"));
    }

    @AfterEach
    void stopServers() {
        try {
            replica.close();
        }
        finally {
            primary.close();
        }
    }

    @Test
    void aPutReturnsOnlyOnceTheReplicaHasItsBits() throws Exception {
        try (TestRedisBackend instance = TestRedisBackend.on(primary, waitingFor(LONG_WAIT))) {
            RedisBloomFilter filter = instance.backend.create("waited", SIZING, 1, 1, AddFailurePolicy.FAIL);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            String bits = bitmapKey("waited");
            for (long key = 10_000; key < 10_050; key++) {
                assertThat(filter.put(key)).isTrue();
                assertThat(replica.command("BITCOUNT", bits)).as("the replica right after put(%d)", key)
                        .isEqualTo(primary.command("BITCOUNT", bits));
            }

            replica.pause();
            CompletableFuture<Boolean> put;
            try {
                put = CompletableFuture.supplyAsync(() -> filter.put(20_000L));
                await("the put still waiting while the replica cannot have the bits")
                        .during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                        .until(() -> !put.isDone());
            }
            finally {
                replica.resume();
            }
            assertThat(put.get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(replica.command("BITCOUNT", bits)).as("the replica right after the put returned")
                    .isEqualTo(primary.command("BITCOUNT", bits));
            assertThat(filter.unconfirmedReplicaBatches()).isZero();
        }
    }

    @Test
    void aPutUnderFailFailsAfterTheWaitTimeoutWhenTheReplicaDoesNotConfirm() {
        try (TestRedisBackend instance = TestRedisBackend.on(primary, waitingFor(SHORT_WAIT))) {
            RedisBloomFilter filter = instance.backend.create("strict", SIZING, 1, 1, AddFailurePolicy.FAIL);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.put(10_000L)).isTrue();

            replica.pause();
            long started = System.nanoTime();
            try {
                assertThatExceptionOfType(RedisUnavailableException.class)
                        .isThrownBy(() -> filter.put(20_000L))
                        .withMessageContaining("the replicas did not confirm the adds")
                        .withMessageContaining("0 of 1 replica(s)");
            }
            finally {
                replica.resume();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).as("about the wait timeout").isBetween(SHORT_WAIT, SHORT_WAIT.plusSeconds(2));
            assertThat(filter.unconfirmedReplicaBatches()).isEqualTo(1);
            assertThat(filter.mightContain(20_000L)).as("the bits stand on the primary: a false positive at worst")
                    .isTrue();
        }
    }

    @Test
    void aPutUnderBufferStandsAndIsCountedWhenTheReplicaDoesNotConfirm(CapturedOutput output) {
        try (TestRedisBackend instance = TestRedisBackend.on(primary, waitingFor(SHORT_WAIT))) {
            RedisBloomFilter backend = instance.backend.create("lenient", SIZING, 1, 1, AddFailurePolicy.BUFFER);
            NamedBloomFilter filter = new NamedBloomFilter(FilterSpec.builder("lenient")
                    .expectedSize(SIZING.expectedSize()).errorRate(SIZING.errorRate()).growth(GrowthPolicy.NONE)
                    .redis(1, NearCopyMode.OFF).build(), backend, FilterState.LOADING);
            MeterRegistry meters = new SimpleMeterRegistry();
            new BloomFilterMetrics(new FixedBloomFilterRegistry(List.of(filter))).bindTo(meters);
            assertThat(backend.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            filter.finishLoading();
            assertThat(backend.put(10_000L)).isTrue();
            assertThat(unconfirmed(meters)).isZero();

            replica.pause();
            long started = System.nanoTime();
            try {
                assertThat(backend.put(20_000L)).isTrue();
                assertThat(backend.put(20_001L)).isTrue();
            }
            finally {
                replica.resume();
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).as("two waits of about the wait timeout")
                    .isBetween(SHORT_WAIT.multipliedBy(2), SHORT_WAIT.multipliedBy(2).plusSeconds(2));
            assertThat(unconfirmed(meters)).isEqualTo(2.0);
            assertThat(backend.pendingAdds()).as("not buffered: the primary has them").isZero();
            assertThat(backend.mightContain(20_000L)).isTrue();
            assertThat(backend.mightContain(20_001L)).isTrue();

            assertThat(backend.put(20_002L)).isTrue();
            assertThat(unconfirmed(meters)).as("confirmed again once the replica answers").isEqualTo(2.0);
            assertThat(lines(output, "WARN", "Filter 'lenient': 0 of 1 replica(s) confirmed the adds"))
                    .as("one warning for the episode, not one per put").hasSize(1);
            assertThat(lines(output, "INFO", "Filter 'lenient': 1 replica(s) confirm its adds again")).hasSize(1);
        }
    }

    /**
     * Without the auto-configuration (which refuses at startup), a port that cannot send {@code WAIT} on the adds'
     * connection (here one that forwards only the port's other commands) is refused when the backend connects: the
     * filter stays unreachable and says what to change, rather than every put waiting for nothing.
     */
    @Test
    void aPortThatCannotWaitForReplicasIsRefusedWithWhatToChange() {
        try (TestRedisBackend instance = TestRedisBackend.intercepting(primary, waitingFor(SHORT_WAIT))) {
            RedisBloomFilter filter = instance.backend.create("refused", SIZING, 1, 1, AddFailurePolicy.FAIL);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.UNREACHABLE);
            assertThat(filter.statusReason()).contains("bloom-guard.redis.wait-for-replicas is 1")
                    .contains("cannot wait for replicas");
        }
    }

    private static List<String> lines(CapturedOutput output, String level, String text) {
        return output.getOut().lines().filter(line -> line.contains(level) && line.contains(text)).toList();
    }

    private static double unconfirmed(MeterRegistry meters) {
        return meters.get("bloomguard.redis.replicas.unconfirmed").functionCounter().count();
    }

    private static RedisBackendSettings waitingFor(Duration timeout) {
        return RedisBackendSettingsBuilder.from(TestRedisBackend.FAST).waitForReplicas(1, timeout).build();
    }

    /** The filter's one bitmap, as the primary names it. */
    private String bitmapKey(String filter) {
        String keys = primary.command("KEYS", "bloom-guard:{" + filter + "}:bits:*");
        assertThat(keys).as("one bitmap").isNotNull().doesNotContain("\n");
        return keys;
    }

    private static List<Object> longs(long from, long to) {
        return LongStream.range(from, to).boxed().map(Object.class::cast).toList();
    }
}
