package io.bloomguard.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Objects;

/**
 * Logs a warning, once per application context and before any bean is created, for each {@code bloom-guard.*}
 * property from an environment variable or a system property that this version does not know, such as
 * {@code BLOOMGUARD_VERSION=1.0} set by a build tool. Those do not stop startup (see
 * {@link BloomGuardProperties#bind}); the same name in the application's configuration files does.
 */
final class UnknownEnvironmentPropertyWarning implements BeanFactoryPostProcessor, EnvironmentAware {

    private static final Log logger = LogFactory.getLog(UnknownEnvironmentPropertyWarning.class);

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        Environment environment = Objects.requireNonNull(this.environment);
        for (ConfigurationProperty property : BloomGuardProperties.unknownInEnvironment(environment)) {
            logger.warn(UnknownPropertyReport.warning(property));
        }
    }
}
