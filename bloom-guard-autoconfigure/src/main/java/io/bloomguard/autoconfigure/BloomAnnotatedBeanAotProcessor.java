package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;

/**
 * Registers the reflection a native image needs for the application's beans with {@code @BloomGuarded},
 * {@code @BloomPut} or {@code @BloomRemove} methods (Spring Data repositories included): at startup each such class
 * and its interfaces are read for the annotations, and a method's parameter names for its key expression; a key
 * expression (or a remove's condition) then reads the properties of the method's parameters and, through
 * {@code #result}, of what it returns; and a guarded method that returns a collection class answers a rejected call
 * with a new one, made through its public constructor.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
final class BloomAnnotatedBeanAotProcessor implements BeanRegistrationAotProcessor {

    private static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(BloomGuarded.class, BloomPut.class,
            BloomRemove.class);

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        if (bean.isInnerBean()) {
            return null;
        }
        // A factory bean's object type: a repository's interface rather than its factory.
        Class<?> type = bean.getBeanFactory().getType(bean.getBeanName(), false);
        if (type == null || !AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
            return null;
        }
        Map<Method, String> keys = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<String>) BloomAnnotatedBeanAotProcessor::keysOf);
        if (keys.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> registerHints(generationContext.getRuntimeHints().reflection(), type, keys);
    }

    private static void registerHints(ReflectionHints reflection, Class<?> type, Map<Method, String> keys) {
        reflection.registerType(type);
        ClassUtils.getAllInterfacesForClassAsSet(type).forEach(reflection::registerType);
        BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
        keys.forEach((method, key) -> {
            reflection.registerType(method.getDeclaringClass());
            reflection.registerMethod(method, ExecutableMode.INTROSPECT);
            if (AnnotatedElementUtils.hasAnnotation(method, BloomGuarded.class)) {
                reflection.registerType(method.getReturnType(), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
            }
            if (key.isEmpty()) {
                return; // the argument itself is the key: nothing of it is read reflectively
            }
            for (int i = 0; i < method.getParameterCount(); i++) {
                binding.registerReflectionHints(reflection,
                        resolved(ResolvableType.forMethodParameter(method, i, type)));
            }
            if (key.contains("#result")) {
                binding.registerReflectionHints(reflection,
                        resolved(ResolvableType.forMethodReturnType(method, type)));
            }
        });
    }

    /**
     * The expressions of an annotated method, keys and a remove's condition ("" when all are defaults), or null when
     * it has none of the annotations.
     */
    private static @Nullable String keysOf(Method method) {
        BloomGuarded guarded = AnnotatedElementUtils.findMergedAnnotation(method, BloomGuarded.class);
        BloomPut put = AnnotatedElementUtils.findMergedAnnotation(method, BloomPut.class);
        BloomRemove remove = AnnotatedElementUtils.findMergedAnnotation(method, BloomRemove.class);
        if (guarded == null && put == null && remove == null) {
            return null;
        }
        return String.join(" ", (guarded != null) ? guarded.key() : "", (put != null) ? put.key() : "",
                (remove != null) ? remove.key() + " " + remove.condition() : "").strip();
    }

    /** A type variable ({@code <S extends User> S save(S)}) as its bound; generic types as they are. */
    private static Type resolved(ResolvableType type) {
        return type.hasGenerics() ? type.getType() : type.toClass();
    }
}
