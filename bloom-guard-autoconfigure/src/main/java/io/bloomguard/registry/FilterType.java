package io.bloomguard.registry;

/**
 * What a filter keeps per position, and so whether keys can be removed from it.
 *
 * @since 0.1.0
 */
public enum FilterType {

    /** A bit per position: the smallest filter; keys go in and stay until a rebuild. */
    BLOOM,

    /**
     * A 4-bit counter per position, four times the memory: keys can also be removed (a deleted record's key), and a
     * remove never makes another key absent.
     */
    COUNTING
}
