package io.bloomguard.local;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.testsupport.BloomFilterContractTest;

/** The backend contract in this JVM. */
class LocalBloomFilterContractTest extends BloomFilterContractTest {

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return LocalBloomFilter.create(sizing, seed);
    }

}
