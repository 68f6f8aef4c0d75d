package io.bloomguard.core;

/**
 * A backend that can build itself anew from its key source beside the live filter, and swap the new one in:
 * deleted keys drop out, keys put meanwhile are kept, and checks are answered by the live filter throughout.
 *
 * <p>Usage: {@code filter.keySource(feed); ... long keys = filter.rebuild();}
 */
public interface RebuildableBloomFilter extends BloomFilter {

    /**
     * The keys a rebuild reads. A shared filter is handed them when it starts ({@link SharedBloomFilter#start}),
     * and ignores this.
     */
    default void keySource(KeyFeed feed) {
    }

    /** Whether this filter has a key source to rebuild from. */
    boolean hasKeySource();

    /**
     * Builds the filter anew from its key source and swaps it in. Blocks until done.
     *
     * @return number of keys read from the source
     * @throws IllegalStateException when it has no key source, or a rebuild is under way already (for a shared
     *                               filter: by any instance)
     */
    long rebuild();
}
