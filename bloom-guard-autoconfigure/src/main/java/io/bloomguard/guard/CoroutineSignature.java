package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A Kotlin {@code suspend} function, or a function returning a {@code Flow}, seen as the Reactor method it runs as
 * behind a Spring proxy: the proxy passes a {@code suspend} call down the interceptor chain with its
 * {@code Continuation} as last argument and awaits the {@code Mono} (or, for a {@code Flow} result, the {@code Flux})
 * that comes back; a {@code Flow} result is converted to a {@code Flux} and back ({@link CoroutineCalls}). So the guard
 * validates and runs {@code suspend fun findById(id: Long): User?} as {@code Mono<User> findById(Long id)} and
 * {@code fun findByName(name: String): Flow<User>} as {@code Flux<User>}: every rule of the reactive path applies.
 *
 * <p>Only where Spring itself supports coroutines behind a proxy (Kotlin, kotlinx-coroutines-reactor and Reactor on
 * the classpath); elsewhere no method is one, and nothing Kotlin is loaded.
 */
final class CoroutineSignature {

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    /** As Spring's {@code AopUtils} decides whether a proxy awaits a suspend call. */
    static final boolean SUPPORTED = KotlinDetector.isKotlinPresent()
            && ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", CoroutineSignature.class.getClassLoader())
            && ClassUtils.isPresent("reactor.core.publisher.Mono", CoroutineSignature.class.getClassLoader());

    private CoroutineSignature() {
    }

    /** Whether the method is a {@code suspend} function or returns a {@code Flow}, either run as a Reactor call. */
    static boolean isCoroutine(Method method) {
        return SUPPORTED && (KotlinDetector.isSuspendingFunction(method) || returnsFlow(method));
    }

    static boolean isSuspending(Method method) {
        return SUPPORTED && KotlinDetector.isSuspendingFunction(method);
    }

    /** Whether the method's Java return type is a {@code Flow} (not a {@code suspend} function's result). */
    static boolean returnsFlow(Method method) {
        return method.getReturnType().getName().equals(FLOW);
    }

    /** The parameters the Kotlin declaration has: a {@code suspend} function's {@code Continuation} is not one. */
    static int parameterCount(Method method) {
        // Whether or not coroutines are supported here: Kotlin reflection names the declared parameters only.
        boolean suspending = KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
        return method.getParameterCount() - (suspending ? 1 : 0);
    }

    /**
     * The Reactor type a coroutine method's call returns through the proxy: {@code Mono<T>} for {@code suspend fun
     * (): T}, {@code Flux<T>} for a {@code Flow<T>} result.
     */
    static ResolvableType reactorReturnType(Method method, @Nullable Class<?> targetClass) {
        ResolvableType kotlin = kotlinReturnType(method, targetClass);
        if (kotlin.resolve(Object.class).getName().equals(FLOW)) {
            return ResolvableType.forClassWithGenerics(Flux.class, kotlin.getGeneric(0));
        }
        ResolvableType value = isUnit(kotlin) ? ResolvableType.forClass(Void.class) : kotlin;
        return ResolvableType.forClassWithGenerics(Mono.class, value);
    }

    /**
     * What a rejected call answers, as the Reactor call the proxy awaits: an empty {@code Flux} for a {@code Flow}
     * (the caller gets {@code emptyFlow()}), an empty {@code Mono} (the caller gets {@code null}) for a nullable or
     * {@code Unit} result, the empty value of a non-null result that has one ({@code false}, {@code 0},
     * {@code emptyList()}); {@code null} for a non-null result that has none, such as {@code User}.
     */
    static @Nullable Function<@Nullable Object[], @Nullable Object> emptyValue(AnnotatedMethod annotated) {
        Method method = annotated.method();
        ResolvableType kotlin = kotlinReturnType(method, annotated.targetClass());
        if (!isSuspending(method) || kotlin.resolve(Object.class).getName().equals(FLOW)) {
            return arguments -> Flux.empty();
        }
        if (isUnit(kotlin) || returnsNullable(method, annotated.targetClass())) {
            return arguments -> Mono.empty();
        }
        Supplier<@Nullable Object> empty = EmptyValues.forType(kotlin.resolve(Object.class));
        Object probe = (empty != null) ? empty.get() : null;
        return (probe != null) ? arguments -> Mono.justOrEmpty(empty.get()) : null;
    }

    /** The startup error for a {@code suspend} function whose result {@link #emptyValue} cannot empty. */
    static InvalidBloomAnnotationException noEmptyValue(AnnotatedMethod annotated) {
        String type = kotlinReturnType(annotated.method(), annotated.targetClass()).resolve(Object.class).getSimpleName();
        if (!KotlinDetector.isKotlinReflectPresent()) {
            return annotated.invalid("it is a suspend function, whose result type bloom-guard reads with Kotlin"
                    + " reflection, and kotlin-reflect is not on the classpath", "Add org.jetbrains.kotlin:kotlin-reflect"
                    + " (Spring's Kotlin support needs it too)");
        }
        return annotated.invalid("it is a suspend function returning the non-null type " + type + ", and a rejected"
                        + " call has no " + type + " to answer with (it never runs)",
                "Declare the result nullable (" + type + "?), which a rejected call answers with null, or return a"
                        + " Flow, a collection, a Boolean or a number; or remove the annotation");
    }

    /**
     * The Kotlin return type, read through the class that declares the user's view of the method (a Kotlin
     * interface behind a repository's JDK proxy), so that Spring's Kotlin support applies and type variables such as
     * {@code T} of {@code CoroutineCrudRepository<User, Long>} resolve.
     */
    private static ResolvableType kotlinReturnType(Method method, @Nullable Class<?> targetClass) {
        return ResolvableType.forMethodParameter(returned(method, targetClass));
    }

    private static boolean returnsNullable(Method method, @Nullable Class<?> targetClass) {
        return KotlinDetector.isKotlinReflectPresent() && returned(method, targetClass).isOptional();
    }

    private static MethodParameter returned(Method method, @Nullable Class<?> targetClass) {
        return new MethodParameter(method, -1).withContainingClass(kotlinView(method, targetClass));
    }

    private static Class<?> kotlinView(Method method, @Nullable Class<?> targetClass) {
        Class<?> declaring = method.getDeclaringClass();
        if (targetClass != null && Proxy.isProxyClass(targetClass)) {
            for (Class<?> candidate : targetClass.getInterfaces()) {
                if (declaring.isAssignableFrom(candidate) && KotlinDetector.isKotlinType(candidate)) {
                    return candidate;
                }
            }
        }
        else if (targetClass != null && declaring.isAssignableFrom(targetClass) && KotlinDetector.isKotlinType(targetClass)) {
            return targetClass;
        }
        return declaring;
    }

    private static boolean isUnit(ResolvableType type) {
        Class<?> resolved = type.resolve(Object.class);
        return resolved == void.class || resolved == Void.class || resolved.getName().equals("kotlin.Unit");
    }
}
