package io.bloomguard.autoconfigure;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Objects;

/**
 * Registers one bean per configured filter, named after the filter, so that
 * {@code @Qualifier("users") NamedBloomFilter users} (or {@code BloomFilter}) injects it. The beans are views
 * of the registry's filters, not copies.
 */
final class FilterBeanRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware, BeanFactoryAware {

    private Environment environment;
    private BeanFactory beanFactory;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        BloomGuardProperties properties = Binder.get(Objects.requireNonNull(environment))
                .bindOrCreate("bloom-guard", BloomGuardProperties.class);
        for (FilterSpec spec : FilterSpecResolver.resolve(properties)) {
            String name = spec.name();
            RootBeanDefinition definition = new RootBeanDefinition(NamedBloomFilter.class,
                    () -> beanFactory.getBean(BloomFilterRegistry.class).get(name));
            registry.registerBeanDefinition(name, definition);
        }
    }
}
