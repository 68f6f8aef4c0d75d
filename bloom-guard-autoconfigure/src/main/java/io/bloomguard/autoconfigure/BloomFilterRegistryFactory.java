package io.bloomguard.autoconfigure;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;

import java.util.List;

/** Builds the registry's filters from their specs, on the backend each one names. */
final class BloomFilterRegistryFactory {

    private BloomFilterRegistryFactory() {
    }

    /**
     * Every filter starts {@code LOADING} (the preload decides when it is ready), or {@code DISABLED} when
     * bloom-guard is switched off.
     */
    static BloomFilterRegistry create(BloomGuardProperties properties) {
        FilterState initial = properties.isEnabled() ? FilterState.LOADING : FilterState.DISABLED;
        List<NamedBloomFilter> filters = FilterSpecResolver.resolve(properties).stream()
                .map(spec -> new NamedBloomFilter(spec, backendFilter(spec), initial))
                .toList();
        return new FixedBloomFilterRegistry(filters);
    }

    private static BloomFilter backendFilter(FilterSpec spec) {
        FilterSizing sizing = FilterSizing.of(spec.expectedSize(), spec.errorRate());
        return switch (spec.backend()) {
            case LOCAL -> LocalBloomFilter.create(sizing);
            case REDIS -> throw new InvalidBloomGuardPropertyException("bloom-guard.filters." + spec.name() + ".backend",
                    "redis", "the redis backend is not supported yet in this version; the only backend available is local");
        };
    }
}
