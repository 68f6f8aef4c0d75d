package io.bloomguard.benchmarks;

/** The filter implementations the benchmarks compare. */
public enum FilterImpl {

    /** bloom-guard's local backend through the public {@code BloomFilter} API, canonicalization included. */
    BLOOM_GUARD,

    /** {@code com.google.common.hash.BloomFilter} with Guava's own funnels. */
    GUAVA,

    /** EXPERIMENT: {@link SplitBlockPrototype}, a candidate layout, not bloom-guard's. */
    SPLIT_BLOCK
}
