package io.bloomguard.sample;

import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;

/**
 * Turns caching on. Kept off the application class so that test slices such as {@code @DataJpaTest}, which read
 * that class, do not need a cache manager.
 */
@Configuration(proxyBeanMethods = false)
@EnableCaching
class CachingConfiguration {
}
