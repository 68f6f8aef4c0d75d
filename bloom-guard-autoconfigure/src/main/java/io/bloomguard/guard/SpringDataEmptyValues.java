package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.domain.SliceImpl;
import org.springframework.data.util.Streamable;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link EmptyValues} for Spring Data's result types: {@code Page}, {@code Slice}, {@code Streamable} and
 * Streamable wrapper types. Loaded only when Spring Data is present, so that it stays optional.
 */
final class SpringDataEmptyValues {

    private SpringDataEmptyValues() {
    }

    static @Nullable Supplier<@Nullable Object> forType(Class<?> type) {
        if (type == Page.class) {
            return Page::empty;
        }
        if (type == Slice.class) {
            return () -> new SliceImpl<>(List.of());
        }
        if (type == Streamable.class) {
            return Streamable::empty;
        }
        if (Streamable.class.isAssignableFrom(type)) {
            return streamableWrapper(type);
        }
        return null;
    }

    /**
     * A Streamable wrapper type (Spring Data's own rule for repository results: a class implementing
     * {@code Streamable} with a constructor, or a static {@code of} or {@code valueOf} method, taking a
     * {@code Streamable}), wrapped around an empty one; {@code null} when the type is not one.
     */
    private static @Nullable Supplier<@Nullable Object> streamableWrapper(Class<?> type) {
        Constructor<?> constructor = ClassUtils.getConstructorIfAvailable(type, Streamable.class);
        if (constructor != null) {
            return () -> BeanUtils.instantiateClass(constructor, Streamable.empty());
        }
        for (String name : List.of("of", "valueOf")) {
            Method factory = ClassUtils.getStaticMethod(type, name, Streamable.class);
            if (factory != null && type.isAssignableFrom(factory.getReturnType())) {
                ReflectionUtils.makeAccessible(factory);
                return () -> ReflectionUtils.invokeMethod(factory, null, Streamable.empty());
            }
        }
        return null;
    }

    /** For a {@code Page} or {@code Slice} returned by a method that takes a {@code Pageable}: one of that size. */
    static @Nullable Function<@Nullable Object[], @Nullable Object> forPagedCall(Class<?> type, Method method) {
        boolean page = type == Page.class;
        if (!page && type != Slice.class) {
            return null;
        }
        Class<?>[] parameters = method.getParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            if (Pageable.class.isAssignableFrom(parameters[i])) {
                int index = i;
                return arguments -> {
                    Pageable pageable = (arguments[index] instanceof Pageable asked) ? asked : Pageable.unpaged();
                    return page ? Page.empty(pageable) : new SliceImpl<>(List.of(), pageable, false);
                };
            }
        }
        return null;
    }

    static boolean isEmpty(Object result) {
        if (result instanceof Slice<?> slice) {
            return !slice.hasContent();
        }
        if (result instanceof Streamable<?> streamable) {
            return streamable.isEmpty();
        }
        return false;
    }
}
