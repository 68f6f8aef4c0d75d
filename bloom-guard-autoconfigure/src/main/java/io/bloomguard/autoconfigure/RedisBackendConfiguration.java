package io.bloomguard.autoconfigure;

import io.bloomguard.redis.LettuceRedisPort;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BackendType;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.lettuce.core.AbstractRedisClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
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

    /** Static and bound from the environment, as the registry that uses it is (see the auto-configuration). */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RedisFilterBackend bloomGuardRedisBackend(Environment environment,
            ObjectProvider<RedisConnectionFactory> connectionFactory) {
        BloomGuardProperties properties = BloomGuardProperties.bind(environment);
        return new RedisFilterBackend(() -> LettuceRedisPort.connect(lettuceClient(connectionFactory.getIfAvailable())),
                FilterSpecResolver.redisSettings(properties.getRedis()));
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
