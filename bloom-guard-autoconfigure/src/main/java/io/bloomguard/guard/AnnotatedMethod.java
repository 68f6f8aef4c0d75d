package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;

import java.lang.reflect.Method;

/**
 * A method one annotation is written on, seen from the class of its bean, which may give type variables of the
 * method their types; and how startup errors about the annotation name it.
 *
 * @param annotation  the annotation as written, e.g. {@code @BloomGuarded(filter = "users")}
 * @param method      the method the annotation is written on, whose parameter names key expressions use
 * @param targetClass the class of the bean, {@code null} when not known
 * @param description {@code Type.method}
 */
record AnnotatedMethod(String annotation, Method method, @Nullable Class<?> targetClass, String description) {

    /**
     * The return type as declared for the bean: {@code V} of a generic base class is {@code Optional<User>} in the
     * subclass that says so. A Kotlin {@code suspend} function, or one returning a {@code Flow}, returns the
     * {@code Mono} or {@code Flux} its calls run as behind the proxy ({@link CoroutineSignature}).
     */
    ResolvableType returnType() {
        if (coroutine()) {
            return CoroutineSignature.reactorReturnType(method, targetClass);
        }
        return (targetClass != null)
                ? ResolvableType.forMethodReturnType(method, targetClass)
                : ResolvableType.forMethodReturnType(method);
    }

    /** {@link #returnType()} as a class. */
    Class<?> returnClass() {
        return returnType().resolve(method.getReturnType());
    }

    /** Whether the method is a Kotlin {@code suspend} function, or returns a {@code Flow}. */
    boolean coroutine() {
        return CoroutineSignature.isCoroutine(method);
    }

    /** The parameters as declared: a {@code suspend} function's {@code Continuation} is none of them. */
    int parameterCount() {
        return CoroutineSignature.parameterCount(method);
    }

    /** A parameter's type as declared for the bean. */
    ResolvableType parameterType(int index) {
        return (targetClass != null)
                ? ResolvableType.forMethodParameter(method, index, targetClass)
                : ResolvableType.forMethodParameter(method, index);
    }

    /** The startup error for this annotation: what is wrong with it, and what to do. */
    InvalidBloomAnnotationException invalid(String problem, String action) {
        return new InvalidBloomAnnotationException(annotation, description, problem, action);
    }

    InvalidBloomAnnotationException invalid(String problem, String action, Throwable cause) {
        return new InvalidBloomAnnotationException(annotation, description, problem, action, cause);
    }
}
