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

    /**
     * {@link #rebuild()} at another size: sized for {@code expectedSize} keys at the same error rate. How a filter
     * grows past its capacity ({@code growth: rebuild}).
     *
     * @return number of keys read from the source
     * @throws IllegalStateException         as {@link #rebuild()}
     * @throws IllegalArgumentException      when a filter of that size cannot be built
     * @throws UnsupportedOperationException when this backend cannot change its size (the default)
     */
    default long rebuild(long expectedSize) {
        throw new UnsupportedOperationException(this + " cannot be rebuilt at another size");
    }
}
