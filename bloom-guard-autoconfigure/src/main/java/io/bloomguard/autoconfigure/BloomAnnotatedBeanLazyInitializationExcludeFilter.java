package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Keeps beans with {@code @BloomGuarded}, {@code @BloomPut} or {@code @BloomRemove} methods out of lazy initialization
 * ({@code spring.main.lazy-initialization=true}), as Spring Boot does for beans with {@code @Scheduled} methods.
 * They are then created at startup, as startup validation promises: a mistake in an annotation still stops
 * startup, and the preload knows which methods each filter guards, so that its "no key source" warning appears.
 * It sees only a bean's declared type, so a {@code @Bean} method declared to return an interface whose
 * implementation carries the annotations stays lazy (docs/guard.md says to declare the concrete class). Spring Data
 * repositories are not affected either way: Spring Data sets their lazy-init from its own bootstrap mode, which
 * Spring Boot's lazy initialization does not override.
 */
final class BloomAnnotatedBeanLazyInitializationExcludeFilter implements LazyInitializationExcludeFilter {

    private static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(BloomGuarded.class, BloomPut.class,
            BloomRemove.class);

    @Override
    public boolean isExcluded(String beanName, BeanDefinition beanDefinition, @Nullable Class<?> beanType) {
        return beanType != null && hasBloomAnnotations(beanType);
    }

    private static boolean hasBloomAnnotations(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
            return false;
        }
        try {
            return !MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<Boolean>) method ->
                    isAnnotated(method) ? Boolean.TRUE : null).isEmpty();
        }
        catch (IllegalStateException | LinkageError ex) {
            // A lazy bean whose method signatures name a class that is not on the classpath: it stays lazy,
            // as it would without bloom-guard, rather than failing a startup that never asked for it.
            return false;
        }
    }

    private static boolean isAnnotated(Method method) {
        return ANNOTATIONS.stream().anyMatch(annotation -> AnnotatedElementUtils.hasAnnotation(method, annotation));
    }
}
