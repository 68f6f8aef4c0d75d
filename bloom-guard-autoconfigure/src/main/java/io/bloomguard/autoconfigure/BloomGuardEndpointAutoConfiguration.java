package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import io.bloomguard.registry.BloomFilterRegistry;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * The {@code bloomfilters} actuator endpoint, when the application has Spring Boot's actuator and the endpoint is
 * available (enabled and exposed: over HTTP only once {@code management.endpoints.web.exposure.include} names it),
 * and its web extension (HTTP statuses) when it is exposed over HTTP.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnAvailableEndpoint(BloomFiltersEndpoint.class)
@ImportRuntimeHints(BloomFiltersEndpointRuntimeHints.class)
public final class BloomGuardEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFilterRegistry.class)
    BloomFiltersEndpoint bloomFiltersEndpoint(BloomFilterRegistry registry) {
        return new BloomFiltersEndpoint(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFiltersEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    BloomFiltersEndpointWebExtension bloomFiltersEndpointWebExtension(BloomFiltersEndpoint endpoint) {
        return new BloomFiltersEndpointWebExtension(endpoint);
    }
}
