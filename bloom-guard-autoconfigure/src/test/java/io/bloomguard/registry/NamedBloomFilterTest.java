package io.bloomguard.registry;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NamedBloomFilterTest {

    private final NamedBloomFilter filter = new NamedBloomFilter(
            new FilterSpec("ids", 1000, 0.01, BackendType.LOCAL, GuardMode.ENFORCE, BackendFailurePolicy.ALLOW,
                    null, 1),
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
}
