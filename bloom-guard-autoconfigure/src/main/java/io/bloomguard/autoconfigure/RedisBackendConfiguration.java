package io.bloomguard.autoconfigure;

import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.port.LettuceRedisPort;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.SpringDataRedisPort;
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
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * The redis backend, when Spring Data Redis is on the classpath. It reaches Redis through the application's
 * {@link RedisConnectionFactory} (its Lettuce client on a connection of its own, or any other client through
 * Spring Data Redis's connection API), resolved
 * only when the first filter starts, so nothing here forces the connection factory to be created early.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisConnectionFactory.class)
final class RedisBackendConfiguration {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.AbstractRedisClient",
            RedisBackendConfiguration.class.getClassLoader());

    /**
     * Commands in flight at once over a blocking client; at or below the pool size Spring Boot gives Jedis (8), so
     * that they do not queue for a connection there.
     */
    private static final int BLOCKING_CLIENT_THREADS = 8;

    /** Static and made from the bound settings, as the registry that uses it is (see the auto-configuration). */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RedisFilterBackend bloomGuardRedisBackend(BloomGuardSettings settings,
            ObjectProvider<RedisConnectionFactory> connectionFactory, Environment environment) {
        BloomGuardThreads threads = new BloomGuardThreads(environment);
        // JDK executor types, made by Spring Boot's builders: the backend is Spring-free, and shuts them down itself.
        return new RedisFilterBackend(() -> connect(connectionFactory.getIfAvailable(), threads),
                RedisSettingsResolver.resolve(settings.properties().getRedis()),
                threads.scheduledExecutor("bloom-guard-redis"), threads.growingPool("bloom-guard-redis-build"));
    }

    @Bean
    @ConditionalOnMissingBean
    static RedisBackendShutdown bloomGuardRedisBackendShutdown(ObjectProvider<RedisFilterBackend> backends) {
        return new RedisBackendShutdown(backends);
    }

    @Bean
    @ConditionalOnMissingBean
    static RedisConnectionCheck bloomGuardRedisConnectionCheck(ObjectProvider<BloomFilterRegistry> registry,
            ObjectProvider<RedisConnectionFactory> connectionFactory, BloomGuardSettings settings) {
        return new RedisConnectionCheck(registry, connectionFactory,
                settings.properties().getRedis().getWaitForReplicas());
    }

    /**
     * Fails startup, rather than the first check or put, when a redis filter has no connection factory to use, or
     * one whose client cannot wait for replicas as {@code bloom-guard.redis.wait-for-replicas} asks.
     */
    static final class RedisConnectionCheck implements SmartInitializingSingleton {

        private final ObjectProvider<BloomFilterRegistry> registry;
        private final ObjectProvider<RedisConnectionFactory> connectionFactory;
        private final int waitForReplicas;

        RedisConnectionCheck(ObjectProvider<BloomFilterRegistry> registry,
                ObjectProvider<RedisConnectionFactory> connectionFactory, int waitForReplicas) {
            this.registry = registry;
            this.connectionFactory = connectionFactory;
            this.waitForReplicas = waitForReplicas;
        }

        @Override
        public void afterSingletonsInstantiated() {
            BloomFilterRegistry filters = registry.getIfAvailable();
            List<String> redisFilters = (filters == null) ? List.of() : filters.all().stream()
                    .filter(filter -> filter.spec().backendType() == BackendType.REDIS)
                    .filter(filter -> filter.state() != FilterState.DISABLED) // holds no bits, uses no Redis
                    .map(NamedBloomFilter::name).toList();
            if (!redisFilters.isEmpty()) {
                RedisConnectionFactory factory = connectionFactory.getIfAvailable();
                checkConnectionFactory(factory, redisFilters.get(0));
                if (waitForReplicas > 0) {
                    checkCanWait(factory, waitForReplicas);
                }
            }
        }
    }

    /**
     * WAIT covers the writes of the connection it is sent on: only the Lettuce port sends the adds and the WAIT on
     * one connection, and only to one server (on a cluster it would reach some node, not the shard's).
     */
    static void checkCanWait(RedisConnectionFactory factory, int waitForReplicas) {
        String property = "bloom-guard.redis.wait-for-replicas";
        if (!(LETTUCE_PRESENT && LettuceClients.isLettuce(factory))) {
            throw new InvalidBloomGuardPropertyException(property, waitForReplicas, "0 with "
                    + factory.getClass().getSimpleName() + ": Redis's WAIT only covers the writes of the connection"
                    + " it is sent on, and this client takes each command's connection from a pool, so the wait"
                    + " could not cover the adds; use Lettuce (spring-boot-starter-data-redis's default client,"
                    + " without the jedis dependency) to wait for replicas");
        }
        if (LettuceClients.isCluster(factory)) {
            throw new InvalidBloomGuardPropertyException(property, waitForReplicas, "0 on Redis Cluster:"
                    + " bloom-guard cannot yet send WAIT to the node of each shard's slot on the connection that wrote"
                    + " there; waiting for replicas needs a Redis server (standalone or Sentinel)");
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

    /**
     * A port of the backend's own: over the application's Lettuce client when it has one (pipelined, per-call
     * timeouts), else over Spring Data Redis's connection API (Jedis, Redisson's factory), at that client's speed.
     */
    static RedisPort connect(RedisConnectionFactory factory, BloomGuardThreads threads) {
        checkConnectionFactory(factory, null);
        if (LETTUCE_PRESENT && LettuceClients.isLettuce(factory)) {
            return LettuceClients.connect(factory);
        }
        return new SpringDataRedisPort(factory,
                threads.fixedPool("bloom-guard-redis-commands", BLOCKING_CLIENT_THREADS));
    }

    private static void checkConnectionFactory(RedisConnectionFactory factory, String filter) {
        if (factory == null) {
            String property = (filter != null) ? "bloom-guard.filters." + filter + ".backend"
                    : "bloom-guard.defaults.backend";
            throw new InvalidBloomGuardPropertyException(property, "redis", "the redis backend needs a"
                    + " RedisConnectionFactory bean: add org.springframework.boot:spring-boot-starter-data-redis and"
                    + " set spring.data.redis.host/port (or url, or cluster.nodes); or use backend local");
        }
    }

    /** Kept apart so that Lettuce's types are loaded only when Lettuce is on the classpath. */
    private static final class LettuceClients {

        static boolean isLettuce(RedisConnectionFactory factory) {
            return factory instanceof LettuceConnectionFactory;
        }

        static boolean isCluster(RedisConnectionFactory factory) {
            return ((LettuceConnectionFactory) factory).isClusterAware();
        }

        static RedisPort connect(RedisConnectionFactory factory) {
            AbstractRedisClient client = ((LettuceConnectionFactory) factory).getRequiredNativeClient();
            return LettuceRedisPort.connect(client);
        }
    }
}
