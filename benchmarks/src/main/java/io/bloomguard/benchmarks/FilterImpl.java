package io.bloomguard.benchmarks;

/** The filter implementations the benchmarks compare. */
public enum FilterImpl {

    /** bloom-guard's local backend through the public {@code BloomFilter} API, canonicalization included. */
    BLOOM_GUARD,

    /** bloom-guard's local counting filter ({@code type: counting}): a 4-bit counter per position. */
    BLOOM_GUARD_COUNTING,

    /** {@code com.google.common.hash.BloomFilter} with Guava's own funnels. */
    GUAVA,

    /** EXPERIMENT: {@link SplitBlockPrototype}, a candidate layout, not bloom-guard's. */
    SPLIT_BLOCK
}
