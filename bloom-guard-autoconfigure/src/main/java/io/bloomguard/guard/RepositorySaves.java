package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * What the guard must know of Spring Data repositories: which classes are their proxies, and that the save-like
 * methods they inherit from Spring Data ({@code saveAll}, {@code saveAndFlush}, {@code insert}...) write through
 * {@code save} or beside it, never through a {@code @BloomPut} of their own.
 *
 * <p>Spring Data implements {@code saveAll}, {@code saveAllAndFlush} and {@code saveAndFlush} by calling {@code save}
 * on the repository implementation itself, past the proxy (a reactive or coroutine repository's {@code saveAll}
 * too), so a {@code @BloomPut} on {@code save} alone would never see the records they write. Unless they carry their
 * own, such methods take {@code save}'s: one of one entity as it is (same parameter, same result); one of many once
 * per saved entity it returns, as if each had gone through {@code save} (a {@code Flux} or {@code Flow} as each is
 * delivered). One whose records cannot be keyed that way (another library's publisher, more parameters than the
 * entities) is refused at startup: its records would be written without their keys, and rejected.
 */
final class RepositorySaves {

    /** The package of Spring Data's base interfaces, whose save-like methods the user did not write. */
    private static final String SPRING_DATA = "org.springframework.data.";

    private final @Nullable Class<?> repository = EmptyValues.optionalClass("org.springframework.data.repository.Repository");

    /** The types of a parameter that holds many entities: each is saved, as by {@code save}. */
    private final Class<?>[] manyEntities = Arrays.stream(new String[] { "java.lang.Iterable",
                    "org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow" })
            .map(EmptyValues::optionalClass).filter(type -> type != null).toArray(Class<?>[]::new);

    private final BiFunction<Method, Class<?>, @Nullable PutOperation> putOf;

    /** @param putOf the put of a method called on a class, as the operation source resolves it */
    RepositorySaves(BiFunction<Method, Class<?>, @Nullable PutOperation> putOf) {
        this.putOf = putOf;
    }

    /** Whether the class is a Spring Data repository's JDK proxy (any {@code Repository}). */
    boolean isRepository(Class<?> targetClass) {
        return repository != null && Proxy.isProxyClass(targetClass) && repository.isAssignableFrom(targetClass);
    }

    /**
     * The put {@code method} takes from {@code save}: {@code null} unless it is a save-like method ({@code save...},
     * {@code insert...}) that a repository (its proxy, or its interface when validated before it exists) inherits
     * from a Spring Data interface, and its {@code save} has a {@code @BloomPut}.
     *
     * @throws InvalidBloomAnnotationException when its records cannot be keyed as {@code save}'s are
     */
    @Nullable PutOperation putThroughSave(Method method, @Nullable Class<?> targetClass) {
        if (targetClass == null || !isRepositoryType(targetClass) || !saveLike(method)
                || !inheritedFromSpringData(method, targetClass)) {
            return null;
        }
        PutOperation save = putOfSave(targetClass);
        if (save == null) {
            return null;
        }
        String description = BloomAnnotationParser.describe(method, targetClass);
        Class<?> returned = new AnnotatedMethod("@BloomPut", method, targetClass, description).returnClass();
        ResultKind kind = ResultKind.of(returned);
        KeyExpression key = keyThroughSave(method, save.key(), kind, returned);
        if (key == null) {
            throw new InvalidBloomAnnotationException("@BloomPut", description, "the repository's save has a @BloomPut"
                    + " for filter '" + save.filter().name() + "', and " + method.getName() + ", which it inherits from "
                    + "Spring Data's " + method.getDeclaringClass().getSimpleName() + ", writes records without it; "
                    + "bloom-guard cannot key them as save's are (" + why(method, kind) + "), so they would be"
                    + " rejected", "Declare " + method.getName() + " in " + userInterface(method, targetClass)
                    + " with a @BloomPut of its own whose key bloom-guard can read (from its arguments, or #result of"
                    + " a value, a collection, a Mono or a Flux), or extend a repository interface without it");
        }
        return new PutOperation(save.filter(), key, description + " (with the @BloomPut of save)", kind);
    }

    /**
     * How {@code method} keys its records with {@code save}'s key, or {@code null} if it cannot: an entity in and out
     * as {@code save} does; entities in and each of them out, in a collection or as a {@code Flux} delivers them.
     */
    private @Nullable KeyExpression keyThroughSave(Method method, KeyExpression save, ResultKind kind, Class<?> returned) {
        if (CoroutineSignature.parameterCount(method) != 1 || returned == void.class || returned == Void.class) {
            return null;
        }
        Class<?> parameter = method.getParameterTypes()[0];
        boolean many = Arrays.stream(manyEntities).anyMatch(type -> type.isAssignableFrom(parameter));
        if (!many) {
            return (kind == ResultKind.NOW || kind == ResultKind.MONO) ? save : null;
        }
        if (kind == ResultKind.NOW && Iterable.class.isAssignableFrom(returned)) {
            return KeyExpression.eachElementOfResult(save);
        }
        return (kind == ResultKind.FLUX) ? KeyExpression.asSavedAlone(save) : null;
    }

    private static String why(Method method, ResultKind kind) {
        if (CoroutineSignature.parameterCount(method) != 1) {
            return "it takes more than the entities to save";
        }
        return (kind == ResultKind.UNWATCHABLE) ? "it returns a " + method.getReturnType().getSimpleName()
                + ", whose values bloom-guard cannot watch" : "it does not return the entities it saved";
    }

    /** The put of the repository's {@code save(entity)}, or {@code null} if it has none. */
    private @Nullable PutOperation putOfSave(Class<?> targetClass) {
        for (Class<?> type : interfacesOf(targetClass)) {
            for (Method candidate : type.getMethods()) {
                if (candidate.getName().equals("save") && CoroutineSignature.parameterCount(candidate) == 1) {
                    PutOperation save = putOf.apply(candidate, targetClass);
                    if (save != null) {
                        return save;
                    }
                }
            }
        }
        return null;
    }

    /** {@code save...} or {@code insert...}, other than {@code save(entity)} itself. */
    private static boolean saveLike(Method method) {
        String name = method.getName();
        boolean save = name.equals("save") && CoroutineSignature.parameterCount(method) == 1;
        return !save && (name.startsWith("save") || name.startsWith("insert")) && !method.isDefault()
                && !Modifier.isStatic(method.getModifiers());
    }

    /** Whether a Spring Data interface of the repository declares the method (the user's may redeclare it). */
    private static boolean inheritedFromSpringData(Method method, Class<?> targetClass) {
        for (Class<?> type : interfacesOf(targetClass)) {
            if (type.getName().startsWith(SPRING_DATA)) {
                for (Method declared : type.getDeclaredMethods()) {
                    if (declared.getName().equals(method.getName())
                            && Arrays.equals(declared.getParameterTypes(), method.getParameterTypes())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The repository interface the user wrote, for messages. */
    private static String userInterface(Method method, Class<?> targetClass) {
        for (Class<?> type : interfacesOf(targetClass)) {
            if (!type.getName().startsWith(SPRING_DATA) && method.getDeclaringClass().isAssignableFrom(type)) {
                return type.getSimpleName();
            }
        }
        return "your repository interface";
    }

    /** A repository's JDK proxy, or its interface (validated before the repository exists). */
    private boolean isRepositoryType(Class<?> targetClass) {
        return repository != null && repository.isAssignableFrom(targetClass)
                && (Proxy.isProxyClass(targetClass) || targetClass.isInterface());
    }

    /** Every interface of the class, or the interface and all it extends. */
    private static Set<Class<?>> interfacesOf(Class<?> targetClass) {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        Deque<Class<?>> toVisit = new ArrayDeque<>(targetClass.isInterface() ? List.of(targetClass)
                : ClassUtils.getAllInterfacesForClassAsSet(targetClass));
        while (!toVisit.isEmpty()) {
            Class<?> type = toVisit.pop();
            if (interfaces.add(type)) {
                toVisit.addAll(Arrays.asList(type.getInterfaces()));
            }
        }
        return interfaces;
    }
}
