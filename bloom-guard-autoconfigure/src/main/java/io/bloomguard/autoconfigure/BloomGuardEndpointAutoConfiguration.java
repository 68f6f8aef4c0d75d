package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import io.bloomguard.registry.BloomFilterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * The {@code bloomfilters} actuator endpoint, when the application has Spring Boot's actuator and the endpoint is
 * available (enabled and exposed: over HTTP only once {@code management.endpoints.web.exposure.include} names it),
 * and its web extension (HTTP statuses) when it is exposed over HTTP. The endpoint is read-only unless
 * {@code management.endpoint.bloomfilters.access=unrestricted}: the startup log says which.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnAvailableEndpoint(BloomFiltersEndpoint.class)
@ImportRuntimeHints(BloomFiltersEndpointRuntimeHints.class)
public final class BloomGuardEndpointAutoConfiguration {

    private static final Log logger = LogFactory.getLog(BloomGuardEndpointAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFilterRegistry.class)
    BloomFiltersEndpoint bloomFiltersEndpoint(BloomFilterRegistry registry,
            ObjectProvider<EndpointAccessResolver> accessResolver, Environment environment) {
        EndpointAccessResolver resolver = accessResolver.getIfAvailable(
                () -> new PropertiesEndpointAccessResolver(environment));
        // The endpoint's own default: the resolver caches its first answer, which the endpoint's mapping reads too.
        Endpoint endpoint = BloomFiltersEndpoint.class.getAnnotation(Endpoint.class);
        reportAccess(resolver.accessFor(EndpointId.of(endpoint.id()), endpoint.defaultAccess()));
        return new BloomFiltersEndpoint(registry);
    }

    /** Says at startup whether the writes are open, and when they are not, what opens them. */
    private static void reportAccess(Access access) {
        if (access == Access.READ_ONLY) {
            logger.info("The bloomfilters endpoint is read-only: its writes (rebuild, confirm-rebuild, test, mode) are"
                    + " refused unless " + BloomFiltersEndpoint.WRITES_PROPERTY + "=unrestricted");
        }
        else if (access == Access.UNRESTRICTED) {
            logger.info("The bloomfilters endpoint accepts writes (rebuild, confirm-rebuild, test, mode): "
                    + BloomFiltersEndpoint.WRITES_PROPERTY + "=unrestricted; secure it as you would the database");
        }
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFiltersEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    BloomFiltersEndpointWebExtension bloomFiltersEndpointWebExtension(BloomFiltersEndpoint endpoint) {
        return new BloomFiltersEndpointWebExtension(endpoint);
    }
}
