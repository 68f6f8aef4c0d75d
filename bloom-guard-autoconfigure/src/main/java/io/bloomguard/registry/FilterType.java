package io.bloomguard.registry;

import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;

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
    COUNTING,

    /**
     * A fingerprint per key in a cuckoo table: keys can be removed as from a counting filter, under the same rule
     * (remove only keys whose rows are proven gone), at about a quarter of its memory. Local backend only for now.
     */
    CUCKOO;

    /** Whether keys can be removed from a filter of this type ({@code @BloomRemove}, change feeds' deletes). */
    public boolean removable() {
        return this != BLOOM;
    }

    /** Bytes a filter of this type takes at {@code sizing}'s expected size and error rate. */
    public long byteSize(FilterSizing sizing) {
        return switch (this) {
            case BLOOM -> sizing.byteSize();
            case COUNTING -> CountingBlockLayout.byteSize(sizing);
            case CUCKOO -> CuckooLayout.byteSize(sizing);
        };
    }
}
