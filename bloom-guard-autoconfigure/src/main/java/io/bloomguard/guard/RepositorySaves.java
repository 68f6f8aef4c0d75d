package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.BiFunction;

/**
 * What the guard must know of Spring Data repositories: which classes are their proxies, and that their
 * {@code saveAll}, {@code saveAllAndFlush} and {@code saveAndFlush} write through {@code save}.
 *
 * <p>Spring Data implements those three by calling {@code save} on the repository implementation itself, past
 * the proxy, so a {@code @BloomPut} on {@code save} alone would never see the records they write. Unless they
 * carry their own, they take {@code save}'s: {@code saveAndFlush} as it is (same parameter, same result), the other
 * two once per saved entity of their result, as if each had gone through {@code save}.
 */
final class RepositorySaves {

    private final @Nullable Class<?> repository = EmptyValues.optionalClass("org.springframework.data.repository.Repository");

    private final @Nullable Class<?> crudRepository =
            EmptyValues.optionalClass("org.springframework.data.repository.CrudRepository");

    private final BiFunction<Method, Class<?>, @Nullable PutOperation> putOf;

    /** @param putOf the put of a method called on a class, as the operation source resolves it */
    RepositorySaves(BiFunction<Method, Class<?>, @Nullable PutOperation> putOf) {
        this.putOf = putOf;
    }

    /** Whether the class is a Spring Data repository's JDK proxy (any {@code Repository}). */
    boolean isRepository(Class<?> targetClass) {
        return isProxyOf(targetClass, repository);
    }

    /**
     * The put {@code method} takes from {@code save}: {@code null} unless it is {@code saveAll}, {@code saveAllAndFlush}
     * or {@code saveAndFlush} of a {@code CrudRepository} proxy whose {@code save} has a {@code @BloomPut}.
     */
    @Nullable PutOperation putThroughSave(Method method, @Nullable Class<?> targetClass) {
        boolean each = method.getName().equals("saveAll") || method.getName().equals("saveAllAndFlush");
        if (!(each || method.getName().equals("saveAndFlush")) || method.getParameterCount() != 1
                || targetClass == null || !isProxyOf(targetClass, crudRepository)) {
            return null;
        }
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
            for (Method candidate : type.getMethods()) {
                if (candidate.getName().equals("save") && candidate.getParameterCount() == 1) {
                    PutOperation save = putOf.apply(candidate, targetClass);
                    if (save != null) {
                        String description = BloomAnnotationParser.describe(method, targetClass) + " (with the @BloomPut of save)";
                        KeyExpression key = each ? KeyExpression.eachElementOfResult(save.key()) : save.key();
                        return new PutOperation(save.filter(), key, description, save.kind());
                    }
                }
            }
        }
        return null;
    }

    /** Whether the class is a JDK proxy of that repository type ({@code null}: no Spring Data). */
    private static boolean isProxyOf(Class<?> targetClass, @Nullable Class<?> repositoryType) {
        return repositoryType != null && Proxy.isProxyClass(targetClass) && repositoryType.isAssignableFrom(targetClass);
    }
}
