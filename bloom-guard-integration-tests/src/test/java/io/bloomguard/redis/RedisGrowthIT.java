package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code growth: rebuild} on a filter shared through Redis: written past its capacity by one instance, it is rebuilt
 * larger from the key source under the load lock, and every instance configured for it, started before or after,
 * recognises the larger generation and keeps rejecting with it, within its error rate and without losing a key.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class RedisGrowthIT {

    private static final int N = 5_000;

    private static final double ERROR_RATE = 0.01;

    private static final FilterSizing SIZING = FilterSizing.of(N, ERROR_RATE);

    private static RedisServerProcess server;

    private final CommittedRows rows = new CommittedRows();

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    @Test
    void writtenPastItsCapacityItGrowsAndEveryInstanceUsesTheLargerFilter() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            NamedBloomFilter writer = filter(a.backend.create("grown", SIZING, 1, 1));
            RedisBloomFilter readerBackend = b.backend.create("grown", SIZING, 1, 1, AddFailurePolicy.BUFFER, true);
            NamedBloomFilter reader = filter(readerBackend);
            rows.commit(N / 2);
            assertThat(((RedisBloomFilter) writer.backend()).start(RecordingKeyFeed.reading(rows::now)))
                .isEqualTo(StartOutcome.LOADED_HERE);
            writer.finishLoading();
            assertThat(readerBackend.start(RecordingKeyFeed.reading(rows::now)))
                .isEqualTo(StartOutcome.ALREADY_LOADED);
            reader.finishLoading();

            // Writes go on, as they do in an application, until the filter has grown past them and settled.
            for (int step = 1; step <= 8; step++) {
                putNew(writer, N / 2);
            }
            await("grown past " + rows.size() + " rows").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    putNew(writer, 10);
                    return !writer.growing() && !writer.overCapacity() && writer.capacity() >= rows.size();
                });

            // By the writer, on a put, or by the reader, which has the key source too and reads the fill.
            assertThat(List.of(writer.history(), reader.history())).as("grown by a rebuild")
                .anyMatch(history -> history.lastRebuild() != null);
            await("the other instance reads the larger generation").atMost(Duration.ofSeconds(5))
                .until(() -> reader.capacity() == writer.capacity());
            assertThat(reader.state()).as("not a mismatch: the filter it is configured for, grown")
                .isEqualTo(FilterState.READY);
            for (NamedBloomFilter instance : List.of(writer, reader)) {
                assertThat(((RedisBloomFilter) instance.backend()).mightContainAll(rows.now()))
                    .as("every row").containsOnly(true);
            }
            assertThat(measuredFalsePositiveRate((RedisBloomFilter) writer.backend())).isLessThanOrEqualTo(ERROR_RATE);
            await("the near copy follows the larger generation").atMost(Duration.ofSeconds(10))
                .until(() -> readerBackend.details().nearCopy().answering() && readerBackend.details().nearCopy()
                    .generation().startsWith(readerBackend.details().generation() + "#"));

            long capacity = writer.capacity();
            writer.rebuild();
            assertThat(writer.capacity()).as("a later rebuild keeps the size it grew to").isEqualTo(capacity);

            try (TestRedisBackend c = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
                RedisBloomFilter late = c.backend.create("grown", SIZING, 2, 1);
                assertThat(late.follow()).as("started after the growth, configured as before")
                    .isEqualTo(StartOutcome.ALREADY_LOADED);
                assertThat(late.capacity()).isEqualTo(capacity);
                assertThat(late.trustedToReject()).isTrue();

                RedisBloomFilter otherRate = c.backend.create("grown", FilterSizing.of(N, 0.02), 3, 1);
                otherRate.follow();
                assertThat(otherRate.status()).as("configured for another error rate: still a mismatch")
                    .isEqualTo(SharedFilterStatus.MISMATCHED);
            }
        }
    }

    /**
     * The writes come from an instance with no key source (a worker): it cannot rebuild the filter, but the instance
     * that has the key source sees the fill in Redis and grows it, without a put of its own.
     */
    @Test
    void keysPutByAnInstanceWithoutAKeySourceAreGrownByOneThatHasIt() {
        try (TestRedisBackend a = TestRedisBackend.on(server, TestRedisBackend.FAST);
                TestRedisBackend b = TestRedisBackend.on(server, TestRedisBackend.FAST)) {
            RedisBloomFilter ownerBackend = a.backend.create("grown-elsewhere", SIZING, 1, 1);
            NamedBloomFilter owner = filter(ownerBackend);
            RedisBloomFilter workerBackend = b.backend.create("grown-elsewhere", SIZING, 1, 1);
            NamedBloomFilter worker = filter(workerBackend);
            rows.commit(N / 2);
            assertThat(ownerBackend.start(RecordingKeyFeed.reading(rows::now))).isEqualTo(StartOutcome.LOADED_HERE);
            owner.finishLoading();
            assertThat(workerBackend.follow()).isEqualTo(StartOutcome.ALREADY_LOADED);
            worker.finishLoading();

            putNew(worker, 2 * N);

            await("grown by the instance with the key source").atMost(Duration.ofSeconds(30))
                .until(() -> !owner.growing() && owner.capacity() >= rows.size());
            assertThat(owner.history().lastRebuild()).isNotNull();
            assertThat(worker.history().lastRebuild()).as("the worker built nothing").isNull();
            await("the worker reads the larger generation").atMost(Duration.ofSeconds(5))
                .until(() -> worker.capacity() == owner.capacity() && worker.state() == FilterState.READY);
            assertThat(workerBackend.mightContainAll(rows.now())).as("every row").containsOnly(true);
        }
    }

    private NamedBloomFilter filter(RedisBloomFilter backend) {
        return new NamedBloomFilter(FilterSpec.builder(backend.name()).expectedSize(N).errorRate(ERROR_RATE)
                .redis(1, NearCopyMode.OFF).build(), backend, FilterState.LOADING);
    }

    /** Commits {@code count} rows and puts their keys in one batch. */
    private void putNew(NamedBloomFilter filter, int count) {
        rows.putNew(filter::putAll, count, count);
    }

    /** Of 10⁶ keys never put, the share the stored bits let through, read here from an export of them. */
    private static double measuredFalsePositiveRate(RedisBloomFilter filter) {
        LocalBloomFilter bits = LocalBloomFilter.fromSnapshot(filter.exportSnapshot());
        SplittableRandom absent = new SplittableRandom(29);
        int probes = 1_000_000;
        int passed = 0;
        for (int i = 0; i < probes; i++) {
            passed += bits.mightContain(1_000_000_000L + (absent.nextLong() >>> 1)) ? 1 : 0;
        }
        return (double) passed / probes;
    }
}
