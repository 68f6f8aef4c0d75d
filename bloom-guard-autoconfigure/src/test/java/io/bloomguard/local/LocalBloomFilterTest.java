package io.bloomguard.local;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.BloomFilterContractTest;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LocalBloomFilterTest extends BloomFilterContractTest {

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return LocalBloomFilter.create(sizing, seed);
    }

    /** The local backend sets exactly the bits the shared layout names: the Redis backend relies on it. */
    @Test
    void setsExactlyTheLayoutsBits() {
        FilterSizing sizing = FilterSizing.of(1_000, 0.01);
        LocalBloomFilter filter = LocalBloomFilter.create(sizing, SEED);
        filter.put("user:1");
        filter.put(42L);
        long[] expected = new long[(int) (sizing.bitSize() / 64)];
        for (Object key : new Object[] { "user:1", 42L }) {
            for (long bit : BlockedBloomLayout.bitIndexes(KeyCanonicalizer.hash(key, SEED), (int) sizing.blockCount(),
                    sizing.hashCount())) {
                expected[(int) (bit / 64)] |= 1L << (bit % 64);
            }
        }
        assertThat(filter.toWords()).isEqualTo(expected);
        assertThat(filter.setBitCount()).isEqualTo(java.util.Arrays.stream(expected).map(Long::bitCount).sum());
    }

    @Test
    void randomSeedsDifferBetweenFilters() {
        FilterSizing sizing = FilterSizing.of(1_000, 0.01);
        assertThat(LocalBloomFilter.create(sizing).seed()).isNotEqualTo(LocalBloomFilter.create(sizing).seed());
    }
}
