package io.bloomguard.autoconfigure;

import io.bloomguard.feed.FilterFeeds;
import io.bloomguard.metrics.BloomFilterMetrics;
import io.bloomguard.registry.BloomFilterRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The filters' Micrometer meters ({@link BloomFilterMetrics}), when Micrometer is on the classpath and the application
 * has a {@link MeterRegistry} (Spring Boot Actuator with a registry): Spring Boot binds the binder to it.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
/**
 * @since 0.1.0
 */
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, BloomFilterRegistry.class })
public final class BloomGuardMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BloomFilterMetrics bloomFilterMetrics(BloomFilterRegistry registry, ObjectProvider<FilterFeeds> feeds) {
        feeds.ifAvailable(created -> { }); // the feeds attach to their filters when created: before the binding
        return new BloomFilterMetrics(registry);
    }
}
