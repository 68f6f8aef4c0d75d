package io.bloomguard.registry;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.RebuildableBloomFilter;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A {@link NamedBloomFilter}'s writes ({@code put}, {@code putAll}, {@code remove}): each counted once the backend
 * took it, and each that changed the filter told to its {@link FilterRebuilds}, which grows it when it is full.
 */
final class FilterWrites {

    private final FilterSpec spec;
    private final BloomFilter backend;
    private final FilterCounters counters;
    private final FilterStateMachine states;
    private final FilterRebuilds rebuilds;

    FilterWrites(FilterSpec spec, BloomFilter backend, FilterCounters counters, FilterStateMachine states,
            FilterRebuilds rebuilds) {
        this.spec = spec;
        this.backend = backend;
        this.counters = counters;
        this.states = states;
        this.rebuilds = rebuilds;
    }

    boolean put(Object key) {
        boolean added = backend.put(key);
        counters.puts(1); // after the backend took it: a key it refused was not put
        if (added) {
            rebuilds.keysAdded();
        }
        return added;
    }

    long putAll(Iterable<?> keys) {
        if (keys instanceof Collection<?> collection) { // a @BloomPut result arrives as a list already
            long added = backend.putAll(collection);
            counters.puts(collection.size());
            if (added > 0) {
                rebuilds.keysAdded();
            }
            return added;
        }
        long added = 0;
        List<Object> batch = new ArrayList<>(NamedBloomFilter.ITERABLE_BATCH);
        for (Object key : keys) {
            batch.add(key);
            if (batch.size() == NamedBloomFilter.ITERABLE_BATCH) {
                added += putAll(batch);
                // a new one: a backend may keep what it could not write yet
                batch = new ArrayList<>(NamedBloomFilter.ITERABLE_BATCH);
            }
        }
        return batch.isEmpty() ? added : added + putAll(batch);
    }

    boolean remove(Object key) {
        return remove(key, null);
    }

    /** {@link #remove(Object)}, or with {@code epoch} only if the filter's build epoch is still that one. */
    boolean remove(Object key, @Nullable Long epoch) {
        if (!spec.sizing().type().removable()) {
            throw new UnsupportedOperationException("Filter '" + spec.name() + "' cannot remove keys: it is a plain"
                    + " Bloom filter, whose bits do not record how many keys set them; declare it with"
                    + " bloom-guard.filters." + spec.name() + ".type: counting or cuckoo");
        }
        FilterState now = states.own();
        if (now == FilterState.LOADING || now == FilterState.DISABLED) {
            KeyCanonicalizer.hash(key, 0); // refused in every state, as by mightContain
            return false;
        }
        if (epoch != null && backend instanceof RebuildableBloomFilter rebuildable) {
            return rebuildable.removeAt(key, epoch);
        }
        return backend.remove(key);
    }
}
