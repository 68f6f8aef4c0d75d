package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code bloomFilters} health contributor, one {@link BloomFilterHealthIndicator} per filter, when the application
 * has Spring Boot's health module; {@code management.health.bloomfilters.enabled=false} switches it off.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnEnabledHealthIndicator("bloomfilters")
public final class BloomGuardHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = { "bloomFiltersHealthIndicator", "bloomFiltersHealthContributor" })
    HealthContributor bloomFiltersHealthContributor(BloomFilterRegistry registry) {
        Map<String, NamedBloomFilter> filters = new LinkedHashMap<>();
        registry.all().forEach(filter -> filters.put(filter.name(), filter));
        return CompositeHealthContributor.fromMap(filters, BloomFilterHealthIndicator::new);
    }
}
