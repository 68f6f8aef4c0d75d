package io.bloomguard.autoconfigure;

import io.bloomguard.feed.ChangeFeedFactory;
import io.bloomguard.feed.FeedCatchUp;
import io.bloomguard.feed.FeedSettings;
import io.bloomguard.feed.FilterFeeds;
import io.bloomguard.feed.JdbcChangeFeedFactory;
import io.bloomguard.guard.BloomGuardAdvisor;
import io.bloomguard.guard.BloomGuardInterceptor;
import io.bloomguard.guard.BloomOperationSource;
import io.bloomguard.guard.CheckObserver;
import io.bloomguard.guard.KeysInTransactionAdvisor;
import io.bloomguard.guard.RepositoryAnnotationValidator;
import io.bloomguard.guard.RepositoryKeysInTransactionPostProcessor;
import io.bloomguard.guard.TransactionCommitWaits;
import io.bloomguard.observation.BloomGuardObservationConvention;
import io.bloomguard.observation.CheckObservations;
import io.bloomguard.observation.ObservationCheckObserver;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloadRunner;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.preload.KeyReadScope;
import io.bloomguard.preload.KeySourceBean;
import io.bloomguard.preload.PublisherKeySource;
import io.bloomguard.preload.ReactiveBloomKeySource;
import io.bloomguard.preload.ScheduledRebuilds;
import io.bloomguard.preload.SharedFilterReadiness;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterSpecCustomizer;
import io.bloomguard.registry.NamedBloomFilter;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.repository.core.support.RepositoryFactoryBeanSupport;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Auto-configuration for bloom-guard: the filter registry and one bean per filter (on the local or the redis
 * backend), the guard that applies {@code @BloomGuarded} / {@code @BloomPut}, and the startup preload.
 */
// After the availability auto-configuration too: its ApplicationAvailability bean is then told of a readiness change
// before SharedFilterReadiness, which may answer that change with one of its own (see there). After the observation
// one, whose registry decides whether the guard's checks are observed.
@AutoConfiguration(afterName = { "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
        "org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
/**
 * @since 0.1.0
 */
@Import(RedisBackendConfiguration.class)
@ImportRuntimeHints(BloomGuardRuntimeHints.class)
public final class BloomGuardAutoConfiguration {

    /** Binds bloom-guard.* and registers the settings and the filter beans, before any bean is created. */
    @Bean
    @ConditionalOnMissingBean
    static BloomGuardPropertiesRegistrar bloomGuardPropertiesRegistrar() {
        return new BloomGuardPropertiesRegistrar();
    }

    /**
     * Static, and made from the settings the registrar bound, a singleton that needs no post-processing: the
     * guard's advisor needs the registry while bean post-processors are still being created, and any bean it
     * pulls in then misses post-processing.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BloomFilterRegistry bloomFilterRegistry(BloomGuardSettings settings,
            ObjectProvider<FilterSpecCustomizer> customizers, ObjectProvider<RedisFilterBackend> redisBackend,
            Environment environment) {
        TransactionCommitWaits.install(); // a leased near copy's wait, once per transaction before its commit
        return BloomFilterRegistryFactory.create(settings, customizers.orderedStream().toList(),
                redisBackend::getIfAvailable, new BloomGuardThreads(environment));
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnBloomGuardEnabledCondition.class)
    @Import(AutoProxyCreatorRegistrar.class)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static final class GuardConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        BloomOperationSource bloomOperationSource(BloomFilterRegistry registry) {
            return new BloomOperationSource(registry);
        }

        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        BloomGuardInterceptor bloomGuardInterceptor(BloomOperationSource source, ObjectProvider<CheckObserver> observer) {
            return new BloomGuardInterceptor(source, observer);
        }

        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        BloomGuardAdvisor bloomGuardAdvisor(BloomOperationSource source, BloomGuardInterceptor interceptor) {
            return new BloomGuardAdvisor(source, interceptor);
        }

        /**
         * A {@code @BloomPut} key taken from the result goes in before the commit: this advisor runs inside the
         * transaction advisor, which is declared before it (this auto-configuration comes after the transaction
         * one) and has the same, lowest, precedence.
         */
        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        KeysInTransactionAdvisor bloomPutBeforeCommitAdvisor(BloomOperationSource source) {
            return new KeysInTransactionAdvisor(source);
        }

        /** Under lazy initialization, annotated beans are still created (and so validated) at startup. */
        @Bean
        @ConditionalOnMissingBean
        static BloomAnnotatedBeanLazyInitializationExcludeFilter bloomAnnotatedBeanLazyInitializationExcludeFilter() {
            return new BloomAnnotatedBeanLazyInitializationExcludeFilter();
        }
    }

    /**
     * Each guarded call's check is an observation (or each one inside another observation), when the application
     * asks for it ({@code bloom-guard.observations.checks}) and has an {@link ObservationRegistry}. Off by default,
     * as Spring's other per-call observations on hot paths are: without an observer the guard makes nothing.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    @Conditional({ OnBloomGuardEnabledCondition.class, OnCheckObservationsCondition.class })
    static final class ObservationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        CheckObserver bloomGuardCheckObserver(ObservationRegistry registry,
                ObjectProvider<BloomGuardObservationConvention> convention, BloomGuardSettings settings) {
            return new ObservationCheckObserver(registry, convention.getIfUnique(),
                    settings.properties().getObservations().getChecks() == CheckObservations.UNDER_PARENT);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RepositoryFactoryBeanSupport.class)
    @Conditional(OnBloomGuardEnabledCondition.class)
    static final class RepositoryGuardConfiguration {

        /** The same for a Spring Data repository's {@code @BloomPut}, inside the repository's own transaction. */
        @Bean
        @ConditionalOnMissingBean
        static RepositoryKeysInTransactionPostProcessor bloomRepositoryPutBeforeCommitPostProcessor(
                ObjectProvider<BloomOperationSource> source) {
            return new RepositoryKeysInTransactionPostProcessor(source);
        }

        /** Annotations on repositories that are not created at startup are checked then too. */
        @Bean
        @ConditionalOnMissingBean
        @Lazy(false) // under spring.main.lazy-initialization a lazy one would never be created, and check nothing
        RepositoryAnnotationValidator bloomRepositoryAnnotationValidator(BloomOperationSource operationSource,
                ListableBeanFactory beanFactory) {
            return new RepositoryAnnotationValidator(operationSource, beanFactory);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnBloomGuardEnabledCondition.class)
    static final class PreloadConfiguration {

        @Bean
        @ConditionalOnMissingBean
        FilterPreloader bloomFilterPreloader(BloomFilterRegistry registry, ObjectProvider<BloomKeySource> keySources,
                ObjectProvider<ReactiveBloomKeySource> reactiveKeySources, ListableBeanFactory beans,
                ObjectProvider<SqlKeySourceFactory> sqlKeySources, ObjectProvider<KeyReadScope> readScope,
                ObjectProvider<BloomOperationSource> operations, Environment environment) {
            List<BloomKeySource> sources = new ArrayList<>(byBeanName(keySources.orderedStream().toList(), beans));
            sources.addAll(reactive(reactiveKeySources.orderedStream().toList(), beans));
            // The registry's specs, already resolved and validated (and a user's own registry's, if there is one).
            List<FilterSpec> specs = registry.all().stream().map(NamedBloomFilter::spec).toList();
            SqlKeySourceFactory sqlFactory = sqlKeySources.getIfAvailable();
            if (sqlFactory != null) {
                sources.addAll(sqlFactory.create(specs));
            }
            else {
                specs.stream().filter(spec -> spec.lifecycle().preloadSql() != null).findFirst().ifPresent(spec -> {
                    throw SqlKeySourceFactory.noDataSource(spec.name(), spec.lifecycle().preloadSql());
                });
            }
            return new FilterPreloader(registry, sources, readScope.getIfAvailable(() -> KeyReadScope.DIRECT), () -> {
                BloomOperationSource source = operations.getIfAvailable();
                return (source != null) ? source.guardedMethodsByFilter() : Map.of();
            }, new BloomGuardThreads(environment).perTask("bloom-guard-preload"));
        }

        /** The key source beans, in their order, each named by its bean name in the preload's log and errors. */
        private static List<BloomKeySource> byBeanName(List<BloomKeySource> ordered, ListableBeanFactory beans) {
            Map<BloomKeySource, String> names = new IdentityHashMap<>();
            beans.getBeansOfType(BloomKeySource.class).forEach((name, source) -> names.put(source, name));
            return ordered.stream()
                    .map(source -> names.containsKey(source) ? new KeySourceBean(names.get(source), source) : source)
                    .toList();
        }

        /** The reactive key source beans, in their order, each read as a key source named by its bean name. */
        private static List<BloomKeySource> reactive(List<ReactiveBloomKeySource> ordered, ListableBeanFactory beans) {
            Map<ReactiveBloomKeySource, String> names = new IdentityHashMap<>();
            beans.getBeansOfType(ReactiveBloomKeySource.class).forEach((name, source) -> names.put(source, name));
            return ordered.stream().<BloomKeySource>map(source -> new PublisherKeySource(names.get(source), source))
                    .toList();
        }

        @Bean
        @ConditionalOnMissingBean
        FilterPreloadRunner bloomFilterPreloadRunner(FilterPreloader preloader, BloomFilterRegistry registry) {
            return new FilterPreloadRunner(preloader, registry);
        }

        /** Rebuilds the filters that have a {@code rebuild.cron}, on a scheduler of its own. */
        @Bean
        @ConditionalOnMissingBean
        ScheduledRebuilds bloomScheduledRebuilds(BloomFilterRegistry registry, Environment environment) {
            return new ScheduledRebuilds(registry, new BloomGuardThreads(environment).scheduler("bloom-guard-rebuild"));
        }

        /** Holds readiness while a shared filter is refused by its store or has never reached it. */
        @Bean
        @ConditionalOnMissingBean
        static SharedFilterReadiness bloomSharedFilterReadiness(ObjectProvider<BloomFilterRegistry> registry,
                ObjectProvider<ApplicationAvailability> availability, BloomGuardSettings settings,
                Environment environment) {
            return new SharedFilterReadiness(registry, availability,
                    settings.properties().getRedis().getRefreshInterval(),
                    new BloomGuardThreads(environment).scheduler("bloom-guard-readiness"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnBloomGuardEnabledCondition.class)
    static final class FeedConfiguration {

        /**
         * The change feeds of the filters that have a {@code feed.type}, each created by the factory bean of its
         * type; none when no filter has one.
         */
        @Bean
        @ConditionalOnMissingBean
        FilterFeeds bloomFilterFeeds(BloomFilterRegistry registry, BloomGuardSettings settings,
                ObjectProvider<ChangeFeedFactory> factories, Environment environment) {
            List<ChangeFeedFactory> kinds = factories.orderedStream().toList();
            Set<String> types = new TreeSet<>(kinds.stream().map(ChangeFeedFactory::type).toList());
            Map<String, FeedSettings> feeds = new LinkedHashMap<>();
            for (NamedBloomFilter filter : registry.all()) {
                FeedSettings feed = settings.properties().feedOf(filter.name()).settings(filter.name());
                if (feed != null && !types.contains(feed.type())) {
                    throw new InvalidBloomGuardPropertyException("bloom-guard.filters." + filter.name() + ".feed.type",
                            feed.type(), "one of " + String.join(", ", types) + (types.contains("postgres") ? ""
                                    : " (postgres comes with the bloom-guard-debezium module)"));
                }
                if (feed != null) {
                    feeds.put(filter.name(), feed);
                }
            }
            return new FilterFeeds(registry, feeds, kinds,
                    new BloomGuardThreads(environment).scheduledExecutor("bloom-guard-feed"), Clock.systemUTC());
        }

        /** Holds the application's readiness, after the preload, until each feed has caught up once. */
        @Bean
        @ConditionalOnMissingBean
        FeedCatchUp bloomFeedCatchUp(FilterFeeds feeds) {
            return new FeedCatchUp(feeds);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ NamedParameterJdbcTemplate.class, DataSource.class })
    static final class JdbcFeedConfiguration {

        /** {@code feed.type: jdbc}, over the application's {@code DataSource}. */
        @Bean
        @ConditionalOnMissingBean
        JdbcChangeFeedFactory bloomJdbcChangeFeedFactory(ObjectProvider<DataSource> dataSource) {
            return new JdbcChangeFeedFactory(() -> {
                DataSource source = dataSource.getIfUnique();
                if (source == null) {
                    throw new IllegalArgumentException("feed.type: jdbc needs the application's DataSource, and"
                            + " there is none (or more than one)");
                }
                return source;
            }, Clock.systemUTC());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ JdbcTemplate.class, DataSource.class })
    static final class JdbcPreloadConfiguration {

        @Bean
        @ConditionalOnMissingBean
        SqlKeySourceFactory bloomSqlKeySourceFactory(ObjectProvider<DataSource> dataSource) {
            return new SqlKeySourceFactory(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionTemplate.class)
    static final class TransactionalPreloadConfiguration {

        /**
         * Reads key sources in a transaction when there is a transaction manager: Spring Data's streaming queries
         * need one, and PostgreSQL streams with a fetch size only with autocommit off. Not a read-only one: an
         * application may route read-only transactions to a replica, and a preload (or a rebuild) from a replica
         * misses every key committed within its lag, which the filter would then reject.
         */
        @Bean
        @ConditionalOnMissingBean
        KeyReadScope bloomKeyReadScope(ObjectProvider<PlatformTransactionManager> transactionManager) {
            return new KeyReadScope() {
                @Override
                public <T> T run(java.util.function.Supplier<T> read) {
                    PlatformTransactionManager manager = transactionManager.getIfUnique();
                    if (manager == null) {
                        return read.get();
                    }
                    return new TransactionTemplate(manager).execute(status -> read.get());
                }
            };
        }
    }

    /** Makes sure an auto-proxy creator exists, so the advisor applies (as {@code @EnableCaching} does). */
    static final class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
