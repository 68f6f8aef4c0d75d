package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A registry of filters fixed at startup (the configuration's).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class FixedBloomFilterRegistry implements BloomFilterRegistry {

    private final Map<String, NamedBloomFilter> filters;
    private final @Nullable AutoCloseable background;

    public FixedBloomFilterRegistry(Collection<NamedBloomFilter> filters) {
        this(filters, null);
    }

    /**
     * @param background what the filters run in the background ({@link BackgroundRebuilds}), closed with the registry
     */
    public FixedBloomFilterRegistry(Collection<NamedBloomFilter> filters, @Nullable BackgroundRebuilds background) {
        this.background = background;
        Map<String, NamedBloomFilter> byName = new LinkedHashMap<>();
        for (NamedBloomFilter filter : filters) {
            if (byName.putIfAbsent(filter.name(), filter) != null) {
                throw new IllegalArgumentException("Two filters named '" + filter.name() + "'");
            }
        }
        this.filters = Collections.unmodifiableMap(byName);
    }

    @Override
    public Optional<NamedBloomFilter> find(String name) {
        return Optional.ofNullable(filters.get(name));
    }

    @Override
    public NamedBloomFilter get(String name) {
        NamedBloomFilter filter = filters.get(name);
        if (filter == null) {
            throw new UnknownFilterException(name, filters.keySet());
        }
        return filter;
    }

    @Override
    public Collection<NamedBloomFilter> all() {
        return filters.values();
    }

    /** Stops the filters' background rebuilds: called when the application context closes. */
    public void close() throws Exception {
        if (background != null) {
            background.close();
        }
    }
}
