package io.bloomguard.autoconfigure;

import io.bloomguard.redis.LettuceRedisPort;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.lettuce.core.AbstractRedisClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.List;

/**
 * The redis backend, when Spring Data Redis and Lettuce are on the classpath. It reaches Redis through the
 * application's {@link RedisConnectionFactory} (its Lettuce client, on a connection of its own), resolved
 * only when the first filter starts, so nothing here forces the connection factory to be created early.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ LettuceConnectionFactory.class, AbstractRedisClient.class })
final class RedisBackendConfiguration {

    /** Static and made from the bound settings, as the registry that uses it is (see the auto-configuration). */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RedisFilterBackend bloomGuardRedisBackend(BloomGuardSettings settings,
            ObjectProvider<RedisConnectionFactory> connectionFactory) {
        return new RedisFilterBackend(() -> LettuceRedisPort.connect(lettuceClient(connectionFactory.getIfAvailable())),
                FilterSpecResolver.redisSettings(settings.properties().getRedis()));
    }

    @Bean
    @ConditionalOnMissingBean
    static RedisBackendShutdown bloomGuardRedisBackendShutdown(ObjectProvider<RedisFilterBackend> backends) {
        return new RedisBackendShutdown(backends);
    }

    @Bean
    @ConditionalOnMissingBean
    static RedisConnectionCheck bloomGuardRedisConnectionCheck(ObjectProvider<BloomFilterRegistry> registry,
            ObjectProvider<RedisConnectionFactory> connectionFactory) {
        return new RedisConnectionCheck(registry, connectionFactory);
    }

    /** Fails startup, rather than the first check, when a redis filter has no Lettuce connection factory to use. */
    static final class RedisConnectionCheck implements SmartInitializingSingleton {

        private final ObjectProvider<BloomFilterRegistry> registry;
        private final ObjectProvider<RedisConnectionFactory> connectionFactory;

        RedisConnectionCheck(ObjectProvider<BloomFilterRegistry> registry,
                ObjectProvider<RedisConnectionFactory> connectionFactory) {
            this.registry = registry;
            this.connectionFactory = connectionFactory;
        }

        @Override
        public void afterSingletonsInstantiated() {
            BloomFilterRegistry filters = registry.getIfAvailable();
            List<String> redisFilters = (filters == null) ? List.of() : filters.all().stream()
                    .filter(filter -> filter.spec().backend() == BackendType.REDIS)
                    .filter(filter -> filter.state() != FilterState.DISABLED) // holds no bits, uses no Redis
                    .map(NamedBloomFilter::name).toList();
            if (!redisFilters.isEmpty()) {
                checkLettuce(connectionFactory.getIfAvailable(), redisFilters.get(0));
            }
        }
    }

    /**
     * Closes the Redis backend when the application stops, while the application's Redis client is still open:
     * the filters then write the adds they still hold, or mark themselves stale in Redis (see
     * {@link RedisFilterBackend#close()}). A destroy method would be too late: a {@link LettuceConnectionFactory}
     * shuts its client down, and with it the backend's connection, when it is stopped, before any bean is
     * destroyed. So this stops in the last phase, after whatever may still write (web server, schedulers,
     * message listeners), and, being registered as dependent on each {@link RedisConnectionFactory}, before it:
     * Spring stops (and destroys) a bean's dependents first. The backend is registered so too, for a context
     * that is destroyed without being stopped (its startup failed).
     */
    static final class RedisBackendShutdown implements SmartLifecycle, BeanNameAware, BeanFactoryAware {

        private final ObjectProvider<RedisFilterBackend> backends;
        private String beanName = "bloomGuardRedisBackendShutdown";
        private volatile boolean running;

        RedisBackendShutdown(ObjectProvider<RedisFilterBackend> backends) {
            this.backends = backends;
        }

        @Override
        public void setBeanName(String name) {
            this.beanName = name;
        }

        @Override
        public void setBeanFactory(BeanFactory beanFactory) {
            if (beanFactory instanceof ConfigurableListableBeanFactory beans) {
                String[] backendNames = beans.getBeanNamesForType(RedisFilterBackend.class, true, false);
                for (String factory : beans.getBeanNamesForType(RedisConnectionFactory.class, true, false)) {
                    beans.registerDependentBean(factory, beanName);
                    for (String backend : backendNames) {
                        beans.registerDependentBean(factory, backend);
                    }
                }
            }
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            backends.orderedStream().forEach(RedisFilterBackend::close);
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        /** Last: its dependency on the connection factory brings it forward to just before the factory stops. */
        @Override
        public int getPhase() {
            return Integer.MIN_VALUE;
        }

        /** Closing the backend is for good: a context that is only paused keeps it. */
        @Override
        public boolean isPauseable() {
            return false;
        }
    }

    private static AbstractRedisClient lettuceClient(RedisConnectionFactory factory) {
        checkLettuce(factory, null);
        return ((LettuceConnectionFactory) factory).getRequiredNativeClient();
    }

    private static void checkLettuce(RedisConnectionFactory factory, String filter) {
        String property = (filter != null) ? "bloom-guard.filters." + filter + ".backend" : "bloom-guard.defaults.backend";
        if (factory == null) {
            throw new InvalidBloomGuardPropertyException(property, "redis", "the redis backend needs a"
                    + " RedisConnectionFactory bean: add org.springframework.boot:spring-boot-starter-data-redis and"
                    + " set spring.data.redis.host/port (or url, or cluster.nodes); or use backend local");
        }
        if (!(factory instanceof LettuceConnectionFactory)) {
            throw new InvalidBloomGuardPropertyException(property, "redis", "the redis backend works through Lettuce,"
                    + " but the application's RedisConnectionFactory is a " + factory.getClass().getSimpleName()
                    + "; use Lettuce (spring.data.redis.client-type=lettuce, the default) or backend local");
        }
    }
}
