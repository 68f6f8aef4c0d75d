package io.bloomguard.core;

/**
 * A backend that can build itself anew from its key source beside the live filter, and swap the new one in:
 * deleted keys drop out, keys put meanwhile are kept, and checks are answered by the live filter throughout.
 *
 * <p>Usage: {@code filter.keySource(feed); ... long keys = filter.rebuild();}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
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

    /**
     * The filter's build epoch as this instance last saw it: a value that changes whenever a rebuild begins (before
     * it reads its key source) and when one swaps in or is given up. Cheap: read before every put.
     *
     * <p>A key put at one epoch whose row commits at another may be missing from the generation now live: the
     * rebuild's read of the key source could not see the uncommitted row, and the put reached only the generation it
     * replaced. Whoever put it puts it again once the row has committed ({@link #rebuiltSince}).
     */
    default long buildEpoch() {
        return 0L;
    }

    /**
     * Whether the filter's epoch is no longer {@code epoch}, asked of the store (one round trip for a shared filter,
     * whose rebuilds other instances may run): a key put at {@code epoch} must then be put again. A store that cannot
     * be asked answers {@code true}.
     */
    default boolean rebuiltSince(long epoch) {
        return buildEpoch() != epoch;
    }

    /**
     * {@link #remove} for a row deleted by a transaction that began at {@code epoch}, if the epoch has not moved
     * since: a generation whose build began after that may never have counted the key (its read of the key source
     * came after the delete, or could not see it yet), and a remove from it would take counts that belong to other
     * keys. When the epoch moved the key is left in, a false positive until the next rebuild.
     *
     * @return whether the key's counts were taken back
     */
    default boolean removeAt(Object key, long epoch) {
        return !rebuiltSince(epoch) && remove(key);
    }
}
