package io.bloomguard.autoconfigure;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.BindMethod;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Objects;

/**
 * Binds {@code bloom-guard.*} once per application context, before any bean is created, and registers what it
 * configures: the {@link BloomGuardSettings} as a singleton the other beans inject, the bound
 * {@link BloomGuardProperties} as Spring Boot would register a properties bean, and one bean per filter. It also logs a
 * warning for each {@code bloom-guard.*} property from an environment variable or a system property that this version
 * does not know, such as {@code BLOOMGUARD_VERSION=1.0} set by a build tool; the same name in the application's
 * configuration files stops startup.
 *
 * <p>A filter's bean is qualified with the filter's name, so that {@code @Qualifier("users") NamedBloomFilter users}
 * (or {@code BloomFilter}) injects it. The bean itself is named {@code usersBloomFilter}: the bare filter name is what
 * users naturally call their own beans for it (a {@code BloomKeySource users()}), and two beans cannot share a name.
 * The beans are the registry's filters, not copies.
 *
 * <p>Ahead-of-time processing leaves the filter beans out of the generated code: this registrar runs again when an
 * AOT-processed application starts and registers them from the configuration it starts with, so that the filter
 * beans and the registry (bound then too) always name the same filters.
 */
final class BloomGuardPropertiesRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware,
        BeanFactoryAware {

    private static final Log logger = LogFactory.getLog(BloomGuardPropertiesRegistrar.class);

    /** Attribute of a filter bean's definition: the filter's name. */
    static final String FILTER_ATTRIBUTE = BloomGuardPropertiesRegistrar.class.getName() + ".filter";

    /** Name of the bound properties' singleton, the name Spring Boot gives a properties bean. */
    static final String PROPERTIES_BEAN_NAME = "bloom-guard-" + BloomGuardProperties.class.getName();

    private @Nullable Environment environment;
    private @Nullable BeanFactory beanFactory;

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
        Environment environment = Objects.requireNonNull(this.environment);
        BloomGuardSettings settings = BloomGuardSettings.bind(environment);
        for (ConfigurationProperty property : BloomGuardSettings.unknownInEnvironment(environment)) {
            logger.warn(UnknownPropertyReport.warning(property));
        }
        if (!(registry instanceof SingletonBeanRegistry singletons)) {
            throw new IllegalStateException("bloom-guard needs a bean factory that takes singletons, not a "
                    + registry.getClass().getName());
        }
        singletons.registerSingleton(BloomGuardSettings.class.getName(), settings);
        registry.registerBeanDefinition(PROPERTIES_BEAN_NAME, propertiesBean(settings.properties()));
        for (FilterSpec spec : settings.filters()) {
            registry.registerBeanDefinition(beanName(spec.name()), filterBean(spec.name()));
        }
    }

    /**
     * The properties as a bean definition, not a bare singleton: {@code /actuator/configprops} lists only the
     * {@code @ConfigurationProperties} beans that have one. Marked as bound already (Spring Boot's mark for a value
     * object bound at construction), so that Spring Boot does not bind it again over the resolved filters.
     */
    private static RootBeanDefinition propertiesBean(BloomGuardProperties properties) {
        RootBeanDefinition definition = new RootBeanDefinition(BloomGuardProperties.class, () -> properties);
        definition.setAttribute(BindMethod.class.getName(), BindMethod.VALUE_OBJECT);
        definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
        return definition;
    }

    private RootBeanDefinition filterBean(String name) {
        BeanFactory beans = Objects.requireNonNull(beanFactory);
        RootBeanDefinition definition = new RootBeanDefinition(NamedBloomFilter.class,
                () -> beans.getBean(BloomFilterRegistry.class).get(name));
        definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
        definition.setAttribute(FILTER_ATTRIBUTE, name);
        // Registered again at startup (see above): generated code would register it twice.
        definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
        return definition;
    }
}
