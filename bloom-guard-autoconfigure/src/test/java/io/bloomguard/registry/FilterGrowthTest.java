package io.bloomguard.registry;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a filter does past its expected size, by its growth policy, and how a counting filter's removes behave in each
 * state. Filled to four times the expected size; the false-positive rate is measured over 10⁶ absent keys, whose
 * sampling spread (under 1% of ε = 1%) is far inside the bounds.
 */
@Timeout(120)
class FilterGrowthTest {

    private static final int N = 20_000;

    private static final double ERROR_RATE = 0.01;

    /** The "database": rows committed so far, read by the key source. */
    private final Set<Long> rows = ConcurrentHashMap.newKeySet();

    private final KeyFeed source = batches -> {
        List<Object> batch = new ArrayList<>(rows);
        batches.accept(batch);
        return batch.size();
    };

    @Test
    void withGrowthNoneItReportsBeingOverCapacityAndItsRateClimbs() {
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.NONE);
        filter.finishLoading();
        fill(filter, N * 9 / 10);
        assertThat(filter.overCapacity()).isFalse();

        fill(filter, 4 * N);

        assertThat(filter.overCapacity()).isTrue();
        assertThat(filter.capacity()).isEqualTo(N);
        assertThat(measuredFalsePositiveRate(filter)).isGreaterThan(10 * ERROR_RATE);
    }

    /**
     * Past 90% of its capacity it rebuilds itself larger from its key source, in the background, as often as needed:
     * once the rebuilds settle it holds the keys at its error rate again, and never lost one on the way.
     */
    @Test
    void withGrowthRebuildItRebuildsItselfLargerAndIsBackWithinItsErrorRate() {
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.REBUILD);
        filter.keySource(source);
        filter.finishLoading();

        fill(filter, 4 * N);

        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !filter.growing()
                && filter.approximateElementCount() < GrowthRebuilds.THRESHOLD * filter.capacity());
        assertThat(filter.capacity()).isGreaterThanOrEqualTo(4 * N);
        assertThat(filter.overCapacity()).isFalse();
        assertThat(filter.history().lastRebuild()).isNotNull();
        for (Long id : rows) {
            assertThat(filter.mightContain(id)).as("row %d", id).isTrue();
        }
        assertThat(measuredFalsePositiveRate(filter)).isLessThanOrEqualTo(ERROR_RATE);
    }

    /** Filled by puts alone, it cannot be rebuilt without emptying it: it reports being over capacity instead. */
    @Test
    void withGrowthRebuildButNoKeySourceItReportsBeingOverCapacity() {
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.REBUILD);
        filter.finishLoading();

        fill(filter, 2 * N);

        assertThat(filter.growing()).isFalse();
        assertThat(filter.overCapacity()).isTrue();
        assertThat(filter.capacity()).isEqualTo(N);
        assertThat(filter.history().lastRebuild()).isNull();
    }

    /** With no room in the heap for the larger filter beside the live one, it stays as it is rather than fail. */
    @Test
    void withNoRoomInTheHeapItDoesNotGrowAndReportsBeingOverCapacity() {
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.NONE);
        filter.keySource(source);
        filter.finishLoading();
        GrowthRebuilds growth = new GrowthRebuilds(filter, (RebuildableLocalFilter) filter.backend(),
                new BackgroundRebuilds(),
                () -> FilterSizing.of(2 * N, ERROR_RATE).byteSize() - 1);
        fill(filter, 2 * N);

        growth.keysAdded();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !growth.growing());

        assertThat(filter.history().lastRebuild()).as("no rebuild").isNull();
        assertThat(filter.capacity()).isEqualTo(N);
        assertThat(filter.overCapacity()).isTrue();
        growth.keysAdded();
        assertThat(growth.growing()).as("not tried again before the pause is over").isFalse();
    }

    /**
     * A growth whose key source failed waits a minute before the next try; a rebuild that goes through meanwhile (an
     * operator's) shows the source works again, and the filter grows at once rather than after the pause.
     */
    @Test
    void aRebuildThatGoesThroughEndsThePauseOfAFailedGrowth() {
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean(true);
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.REBUILD);
        filter.keySource(batches -> {
            if (failing.get()) {
                throw new IllegalStateException("the database is down");
            }
            return source.feed(batches);
        });
        filter.finishLoading();
        fill(filter, N);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !filter.growing());
        assertThat(filter.capacity()).as("the growth failed").isEqualTo(N);

        failing.set(false);
        filter.rebuild();

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !filter.growing()
                && filter.capacity() > N);
        assertThat(filter.capacity()).isGreaterThanOrEqualTo(GrowthRebuilds.FACTOR * N * 9 / 10);
    }

    /** A counting filter grows the same way, and is still a counting filter afterwards. */
    @Test
    void aCountingFilterGrowsAndStillRemoves() {
        NamedBloomFilter filter = filter(FilterType.COUNTING, GrowthPolicy.REBUILD);
        filter.keySource(source);
        filter.finishLoading();

        fill(filter, 2 * N);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !filter.growing()
                && filter.approximateElementCount() < GrowthRebuilds.THRESHOLD * filter.capacity());

        assertThat(((RebuildableLocalFilter) filter.backend()).live()).isInstanceOf(LocalCountingFilter.class);
        assertThat(filter.remove(7L)).isTrue();
        assertThat(filter.mightContain(8L)).isTrue();
    }

    @Test
    void aPlainFilterRefusesToRemoveNamingTheProperty() {
        NamedBloomFilter filter = filter(FilterType.BLOOM, GrowthPolicy.NONE);
        filter.finishLoading();
        filter.put(1L);

        assertThatThrownBy(() -> filter.remove(1L)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Filter 'ids' cannot remove keys")
                .hasMessageContaining("bloom-guard.filters.ids.type: counting");
        assertThat(filter.mightContain(1L)).isTrue();
    }

    /**
     * While it loads, a remove is left out (the preload may not have read the key, and never will): the key stays in,
     * as a false positive, rather than the remove taking counts from keys the preload puts later.
     */
    @Test
    void aCountingFilterLeavesRemovesOutWhileItLoads() {
        NamedBloomFilter filter = filter(FilterType.COUNTING, GrowthPolicy.NONE);
        filter.put(1L);

        assertThat(filter.remove(1L)).isFalse();
        assertThatIllegalArgumentException().isThrownBy(() -> filter.remove(1.5d));
        filter.finishLoading();
        assertThat(filter.mightContain(1L)).isTrue();
        assertThat(filter.remove(1L)).isTrue();
        assertThat(filter.mightContain(1L)).isFalse();
        assertThat(filter.remove(1L)).as("certainly absent now").isFalse();
    }

    private static NamedBloomFilter filter(FilterType type, GrowthPolicy growth) {
        FilterSpec spec = FilterSpec.builder("ids").expectedSize(N).errorRate(ERROR_RATE).type(type).growth(growth)
                .build();
        FilterSizing sizing = FilterSizing.of(N, ERROR_RATE);
        RebuildableLocalFilter backend = (type == FilterType.COUNTING)
                ? new RebuildableLocalFilter(sizing, Duration.ZERO, LocalCountingFilter::create)
                : new RebuildableLocalFilter(sizing, Duration.ZERO);
        return new NamedBloomFilter(spec, backend, FilterState.LOADING);
    }

    /** Commits rows and puts their keys, as a {@code @BloomPut} write does, until {@code upTo} rows exist. */
    private void fill(NamedBloomFilter filter, long upTo) {
        for (long id = rows.size(); id < upTo; id++) {
            rows.add(id);
            filter.put(id);
        }
    }

    /** Of 10⁶ keys that were never put, the share the filter lets through. */
    private static double measuredFalsePositiveRate(NamedBloomFilter filter) {
        SplittableRandom absent = new SplittableRandom(13);
        int probes = 1_000_000;
        int passed = 0;
        for (int i = 0; i < probes; i++) {
            passed += filter.mightContain(N * 1000L + (absent.nextLong() >>> 1)) ? 1 : 0;
        }
        return (double) passed / probes;
    }
}
