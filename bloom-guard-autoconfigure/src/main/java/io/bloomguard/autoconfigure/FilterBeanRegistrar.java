package io.bloomguard.autoconfigure;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Objects;

/**
 * Registers one bean per configured filter, qualified with the filter's name, so that
 * {@code @Qualifier("users") NamedBloomFilter users} (or {@code BloomFilter}) injects it. The bean itself is
 * named {@code usersBloomFilter}: the bare filter name is what users naturally call their own beans for it
 * (a {@code BloomKeySource users()}), and two beans cannot share a name. The beans are the registry's
 * filters, not copies.
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

    /** Bean name of a filter's bean. */
    static String beanName(String filter) {
        return filter + "BloomFilter";
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        BloomGuardProperties properties = BloomGuardProperties.bind(Objects.requireNonNull(environment));
        for (FilterSpec spec : FilterSpecResolver.resolve(properties)) {
            String name = spec.name();
            RootBeanDefinition definition = new RootBeanDefinition(NamedBloomFilter.class,
                    () -> beanFactory.getBean(BloomFilterRegistry.class).get(name));
            definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
            registry.registerBeanDefinition(beanName(name), definition);
        }
    }
}
