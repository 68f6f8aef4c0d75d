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
            new FilterSpec("ids", 1000, 0.01, BackendType.LOCAL, GuardMode.ENFORCE, BackendFailurePolicy.ALLOW,
                    AddFailurePolicy.BUFFER, null, 1),
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
}
