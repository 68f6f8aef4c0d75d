package io.bloomguard.registry;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class NamedBloomFilterTest {

    private final NamedBloomFilter filter = new NamedBloomFilter(
            FilterSpec.builder("ids").expectedSize(1000).errorRate(0.01).growth(GrowthPolicy.NONE).build(),
            LocalBloomFilter.create(FilterSizing.of(1000, 0.01), 7), FilterState.LOADING);

    @Test
    void aLoadThatCompletesMakesTheFilterReady() {
        assertThat(filter.finishLoading()).isTrue();
        assertThat(filter.state()).isEqualTo(FilterState.READY);
        assertThat(filter.trustedToReject()).isTrue();
    }

    /** A write whose key was lost while the filter loaded: the finished load must not make it trusted again. */
    @Test
    void aFilterThatFailedWhileLoadingStaysFailedWhenTheLoadCompletes() {
        filter.transitionTo(FilterState.FAILED);
        assertThat(filter.finishLoading()).isFalse();
        assertThat(filter.state()).isEqualTo(FilterState.FAILED);
        assertThat(filter.trustedToReject()).isFalse();
        assertThat(filter.mightContain(42L)).as("passes everything").isTrue();
    }

    /** A key the filter cannot hold fails the same way while it loads as once it is ready. */
    @Test
    void aKeyOfAnUnsupportedTypeIsRefusedInEveryState() {
        assertThatIllegalArgumentException().as("loading").isThrownBy(() -> filter.mightContain(1.5d));
        filter.finishLoading();
        assertThatIllegalArgumentException().as("ready").isThrownBy(() -> filter.mightContain(1.5d));
    }

    @Test
    void aBatchWithAKeyOfAnUnsupportedTypeIsRefusedInEveryState() {
        assertThatIllegalArgumentException().as("loading")
                .isThrownBy(() -> filter.mightContainAll(List.of(1L, 1.5d)));
        filter.finishLoading();
        assertThatIllegalArgumentException().as("ready")
                .isThrownBy(() -> filter.mightContainAll(List.of(1L, 1.5d)));
    }

    @Test
    void aRefusedPutIsNotCountedAsPut() {
        assertThatIllegalArgumentException().isThrownBy(() -> filter.put(1.5d));
        assertThatIllegalArgumentException().isThrownBy(() -> filter.putAll(List.of(1L, 1.5d)));
        filter.put(1L);
        assertThat(filter.stats().puts()).isEqualTo(1);
    }

    /** Keys from a cursor go in batch by batch, each one handed on, and all of them are in. */
    @Test
    void keysOfAnIterableThatIsNoCollectionAllGoIn() {
        int count = NamedBloomFilter.ITERABLE_BATCH * 2 + 7;
        Iterable<Long> cursor = () -> LongStream.range(0, count).boxed().iterator();
        assertThat(filter.putAll(cursor)).isPositive();
        filter.finishLoading();
        assertThat(LongStream.range(0, count)).allMatch(filter::mightContain);
        assertThat(filter.stats().puts()).isEqualTo(count);
    }

    /** A local filter that lost a key rebuilds itself from its key source, and rejects again. */
    @Test
    void aFailedLocalFilterWithAKeySourceRebuildsItselfAndIsReadyAgain() {
        java.util.Set<Long> rows = java.util.concurrent.ConcurrentHashMap.newKeySet();
        NamedBloomFilter local = new NamedBloomFilter(filter.spec(),
                new io.bloomguard.local.RebuildableLocalFilter(FilterSizing.of(1000, 0.01), java.time.Duration.ZERO),
                FilterState.LOADING);
        local.keySource(batches -> {
            List<Object> batch = new java.util.ArrayList<>(rows);
            batches.accept(batch);
            return batch.size();
        });
        local.finishLoading();
        rows.add(7L); // committed, but its key never reached the filter

        assertThat(local.markIncomplete("lost 7")).as("recovers by itself").isTrue();
        assertThat(local.state()).isEqualTo(FilterState.FAILED);

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> local.state() == FilterState.READY);
        assertThat(local.mightContain(7L)).isTrue();
        assertThat(local.history().lastRebuild()).isNotNull();
    }

    /** A local filter filled by puts alone cannot be rebuilt (that would empty it): it stays FAILED. */
    @Test
    void aFailedLocalFilterWithoutAKeySourceStaysFailed() {
        NamedBloomFilter local = new NamedBloomFilter(filter.spec(),
                new io.bloomguard.local.RebuildableLocalFilter(FilterSizing.of(1000, 0.01), java.time.Duration.ZERO),
                FilterState.READY);
        local.put("seen");

        assertThat(local.markIncomplete("lost one")).isFalse();
        assertThat(local.state()).isEqualTo(FilterState.FAILED);
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(local::rebuild)
                .withMessageContaining("no key source");
        assertThat(local.mightContain("seen")).as("calls pass through, nothing is emptied").isTrue();
    }

    /**
     * Checks from code follow the guard: while a write whose row may be visible has not put its key, "absent" is
     * answered only once it has (the writing thread itself is never told "absent").
     */
    @Test
    void aCheckFromCodeWaitsForAVisibleWriteToPutItsKey() throws Exception {
        filter.finishLoading();
        UnkeyedWrites.Write write = filter.unkeyedWrites().begin();
        write.visible();
        assertThat(filter.mightContain(42L)).as("on the writing thread").isTrue();

        java.util.concurrent.CompletableFuture<Boolean> written = io.bloomguard.testapp.OwnThread
                .supply(() -> filter.mightContain(42L));
        java.util.concurrent.CompletableFuture<Boolean> absent = io.bloomguard.testapp.OwnThread
                .supply(() -> filter.mightContain(43L));
        filter.put(42L);
        write.end();

        assertThat(written.get(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(absent.get(5, java.util.concurrent.TimeUnit.SECONDS)).as("asked again once the write was over")
                .isFalse();
    }

    /** "Since when" is the moment of the change, not of the first look at the state. */
    @Test
    void theStateSinceIsWhenItChanged() {
        java.time.Instant before = java.time.Instant.now();
        filter.finishLoading();
        java.time.Instant after = java.time.Instant.now();
        org.awaitility.Awaitility.await().until(() -> java.time.Instant.now().isAfter(after.plusMillis(20)));

        assertThat(filter.stateSince()).isBetween(before, after);
    }
}
