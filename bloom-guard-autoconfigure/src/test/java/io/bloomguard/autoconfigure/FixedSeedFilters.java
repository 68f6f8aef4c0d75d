package io.bloomguard.autoconfigure;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.FixedBloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The local filters as configured, as the auto-configuration makes them but with the hash seed {@link #SEED} rather
 * than a random one (and its rebuilds too), so that what a test counts of their bits is the same every run: the fill,
 * the estimated keys, which absent keys pass.
 *
 * <p>Usage: {@code runner.withUserConfiguration(FixedSeedFilters.class).run(...)}; plain and counting filters only.
 */
@Configuration(proxyBeanMethods = false)
class FixedSeedFilters {

    static final int SEED = 7;

    @Bean
    static BloomFilterRegistry bloomFilterRegistry(BloomGuardSettings settings) {
        return new FixedBloomFilterRegistry(settings.filters().stream()
                .map(spec -> new NamedBloomFilter(spec, new RebuildableLocalFilter(
                        FilterSizing.of(spec.sizing().expectedSize(), spec.sizing().errorRate()),
                        BloomFilterRegistryFactory.LOCAL_REBUILD_GRACE,
                        (spec.sizing().type() == FilterType.COUNTING) ? sizing -> LocalCountingFilter.create(sizing, SEED)
                                : sizing -> LocalBloomFilter.create(sizing, SEED)), FilterState.LOADING))
                .toList());
    }
}
