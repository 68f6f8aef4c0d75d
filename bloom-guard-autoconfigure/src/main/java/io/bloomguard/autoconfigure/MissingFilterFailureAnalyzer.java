package io.bloomguard.autoconfigure;

import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.InjectionPoint;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;

/**
 * Explains an injection of a {@code NamedBloomFilter} by a name that no filter has ({@code @Qualifier("userz")}),
 * with the configured names; Spring's own report says only that no bean qualifies. Ahead of Spring Boot's analyzer
 * for missing beans, which would otherwise answer first.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class MissingFilterFailureAnalyzer implements FailureAnalyzer {

    private final BeanFactory beanFactory;

    MissingFilterFailureAnalyzer(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        InjectionPoint injectionPoint = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnsatisfiedDependencyException unsatisfied && unsatisfied.getInjectionPoint() != null) {
                injectionPoint = unsatisfied.getInjectionPoint();
            }
            if (cause instanceof NoSuchBeanDefinitionException missing && injectionPoint != null
                    && missing.getBeanType() == NamedBloomFilter.class) {
                String name = qualifier(injectionPoint);
                return (name != null) ? analysis(name, injectionPoint, missing) : null;
            }
        }
        return null;
    }

    private FailureAnalysis analysis(String name, InjectionPoint injectionPoint, Throwable cause) {
        List<String> names = filterNames();
        String configured = names.isEmpty() ? "none" : String.join(", ", names);
        return new FailureAnalysis("No bloom-guard filter named '" + name + "' to inject into " + injectionPoint
                + "; configured filters: " + configured,
                "Use one of the configured names in @Qualifier, or declare bloom-guard.filters." + name
                        + " in your configuration", cause);
    }

    /**
     * The filters whose beans were registered: the definitions outlive a failed startup, which has destroyed the
     * singletons (the bound settings among them) by the time this runs.
     */
    private List<String> filterNames() {
        List<String> names = new ArrayList<>();
        if (beanFactory instanceof ConfigurableListableBeanFactory beans) {
            for (String beanName : beans.getBeanNamesForType(NamedBloomFilter.class, true, false)) {
                if (beans.containsBeanDefinition(beanName)
                        && beans.getBeanDefinition(beanName).getAttribute(
                                BloomGuardPropertiesRegistrar.FILTER_ATTRIBUTE) instanceof String filter) {
                    names.add(filter);
                }
            }
        }
        return names;
    }

    private static @Nullable String qualifier(InjectionPoint injectionPoint) {
        for (Annotation annotation : injectionPoint.getAnnotations()) {
            if (annotation instanceof Qualifier qualifier && !qualifier.value().isEmpty()) {
                return qualifier.value();
            }
        }
        return null;
    }
}
