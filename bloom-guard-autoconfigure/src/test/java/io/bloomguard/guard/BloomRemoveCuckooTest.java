package io.bloomguard.guard;

import io.bloomguard.local.LocalCuckooFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BloomRemoveTest}'s cases behind a cuckoo filter ({@code type: cuckoo}): a remove takes a fingerprint out
 * under the same proof rules as a counting filter's counts (committed, not rolled back, proven by the result or the
 * condition), and every other customer is still found.
 */
@TestPropertySource(properties = "bloom-guard.filters.removable.type=cuckoo")
class BloomRemoveCuckooTest extends BloomRemoveTest {

    @Test
    void theFilterIsACuckooFilter() {
        assertThat(((RebuildableLocalFilter) removable.backend()).live()).isInstanceOf(LocalCuckooFilter.class);
    }
}
