package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * The value a rejected call returns, by return type: what the method itself would have answered for a key
 * that does not exist.
 *
 * <table>
 * <caption>Return type → rejected value</caption>
 * <tr><td>{@code void}, any other object type (an entity, {@code String})</td><td>{@code null}</td></tr>
 * <tr><td>{@code Optional}, {@code OptionalInt/Long/Double}</td><td>empty</td></tr>
 * <tr><td>{@code List}, {@code Collection}, {@code Iterable}, {@code Set}, {@code Map} (and sorted
 * kinds)</td><td>an immutable empty one</td></tr>
 * <tr><td>{@code Queue}, {@code Deque}</td><td>a new {@code ArrayDeque}</td></tr>
 * <tr><td>{@code ArrayList}, {@code HashSet}, {@code HashMap}, … (concrete types with a public no-argument
 * constructor)</td><td>a new empty one</td></tr>
 * <tr><td>{@code Stream}, {@code IntStream}, {@code LongStream}, {@code DoubleStream}</td><td>empty</td></tr>
 * <tr><td>arrays</td><td>an empty array</td></tr>
 * <tr><td>{@code boolean} / {@code Boolean}</td><td>{@code false}</td></tr>
 * <tr><td>numbers ({@code long}, {@code int}, {@code Long}, …)</td><td>{@code 0}</td></tr>
 * <tr><td>Spring Data {@code Page}, {@code Slice}, {@code Streamable}</td><td>empty (a page or slice of the call's
 * {@code Pageable}, when the method takes one)</td></tr>
 * <tr><td>Spring Data Streamable wrapper types</td><td>one wrapped around an empty {@code Streamable}</td></tr>
 * <tr><td>Reactor {@code Mono} / {@code Flux}</td><td>{@code Mono.empty()} / {@code Flux.empty()}</td></tr>
 * </table>
 *
 * {@code char}, {@code Future}, {@code CompletionStage}/{@code CompletableFuture}, Reactive Streams
 * publishers other than Reactor's and collection types this class cannot build (other interfaces such as
 * {@code BlockingQueue}, abstract classes, classes without a public no-argument constructor) have no empty value: a guarded
 * method returning one is refused at startup.
 */
final class EmptyValues {

    private static final boolean SPRING_DATA = ClassUtils.isPresent("org.springframework.data.domain.Page",
            EmptyValues.class.getClassLoader());

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
            EmptyValues.class.getClassLoader());

    private static final @Nullable Class<?> PUBLISHER = optionalClass("org.reactivestreams.Publisher");

    private EmptyValues() {
    }

    /** A class that may be missing from the classpath (Reactor, Spring Data), or {@code null} when it is. */
    static @Nullable Class<?> optionalClass(String name) {
        ClassLoader loader = EmptyValues.class.getClassLoader();
        return ClassUtils.isPresent(name, loader) ? ClassUtils.resolveClassName(name, loader) : null;
    }

    /** The empty value of a return type, or {@code null} when it has none. */
    static @Nullable Supplier<@Nullable Object> forType(Class<?> type) {
        if (type == void.class || type == Void.class) {
            return () -> null;
        }
        if (type.isPrimitive()) {
            return primitiveZero(type);
        }
        if (type == Boolean.class) {
            return constant(Boolean.FALSE);
        }
        if (Number.class.isAssignableFrom(type)) {
            return boxedZero(type);
        }
        if (type == Optional.class) {
            return Optional::empty;
        }
        if (type == OptionalInt.class) {
            return OptionalInt::empty;
        }
        if (type == OptionalLong.class) {
            return OptionalLong::empty;
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble::empty;
        }
        if (type.isArray()) {
            Object empty = Array.newInstance(type.getComponentType(), 0);
            return () -> empty;
        }
        if (BaseStream.isStream(type)) {
            return BaseStream.emptyOf(type);
        }
        if (SPRING_DATA) {
            Supplier<@Nullable Object> data = SpringDataEmpty.forType(type);
            if (data != null) {
                return data;
            }
        }
        if (REACTOR) {
            Supplier<@Nullable Object> reactive = ReactorEmpty.forType(type);
            if (reactive != null) {
                return reactive;
            }
        }
        // Reactor's types are answered above: a deferred type here is a future or another library's publisher.
        if (isDeferred(type) || type == Character.class) {
            return null;
        }
        if (Iterable.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                || Iterator.class.isAssignableFrom(type)) {
            return emptyContainer(type);
        }
        return () -> null;
    }

    /**
     * The empty value of a guarded method's return type for one call, or {@code null} when the type has none.
     * Most types answer the same whatever the arguments; a {@code Page} or {@code Slice} answers with the
     * {@code Pageable} the call asked for, as the query itself would have (page 3 of 20, nothing in it), so that
     * a client building page links from it sees the page it asked for.
     */
    static @Nullable Function<@Nullable Object[], @Nullable Object> forCall(Class<?> returnType, Method method) {
        if (SPRING_DATA) {
            Function<@Nullable Object[], @Nullable Object> paged = SpringDataEmpty.forPagedCall(returnType, method);
            if (paged != null) {
                return paged;
            }
        }
        Supplier<@Nullable Object> empty = forType(returnType);
        return (empty != null) ? arguments -> empty.get() : null;
    }

    /** For a return type with no empty value: what the method could return instead, for the startup error. */
    static String whatToReturnInstead(Class<?> type) {
        if (Iterable.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)) {
            return "Return List, Set, Collection, Map, Queue or Deque, or a concrete collection or map with a public"
                    + " no-argument constructor (ArrayList, LinkedList, HashMap, …), which a rejected call gets empty;"
                    + " or remove the annotation";
        }
        if (isDeferred(type)) {
            return "Return Optional, an entity (null), a collection or a number, or a Reactor Mono or Flux, checked"
                    + " when subscribed to; or remove the annotation";
        }
        return "Return Optional, a collection, a stream, an entity (null), boolean or a number; or remove the"
                + " annotation";
    }

    /**
     * Whether a value of the type is only a promise of the result (a future, a completion stage, a reactive
     * publisher), not the result itself.
     */
    static boolean isDeferred(Class<?> type) {
        // Spring's registry knows the other libraries' promises (RxJava, Mutiny, java.util.concurrent.Flow) that
        // are no Reactive Streams publishers: as results they would get null, and be checked at the call.
        return Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || (PUBLISHER != null && PUBLISHER.isAssignableFrom(type))
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
    }

    /**
     * Whether a method's result shows that it found something: not {@linkplain #isEmpty empty}, and not a
     * stream, iterator or reactive type, whose content cannot be looked at without consuming it.
     */
    static boolean isFound(@Nullable Object result) {
        return !isEmpty(result) && !(result instanceof java.util.stream.BaseStream<?, ?>)
                && !(result instanceof Iterator<?>) && !(PUBLISHER != null && PUBLISHER.isInstance(result));
    }

    /**
     * Whether a method's result means "not found": {@code null}, an empty optional, collection, map or array,
     * {@code false} or zero. Streams and reactive types cannot be looked into without consuming them, so they
     * count as not empty.
     */
    static boolean isEmpty(@Nullable Object result) {
        if (result == null) {
            return true;
        }
        if (result instanceof Optional<?> o) {
            return o.isEmpty();
        }
        if (result instanceof Collection<?> c) {
            return c.isEmpty();
        }
        if (result instanceof Map<?, ?> m) {
            return m.isEmpty();
        }
        if (result instanceof Boolean b) {
            return !b;
        }
        if (result instanceof Number n) {
            return n.doubleValue() == 0.0;
        }
        if (result.getClass().isArray()) {
            return Array.getLength(result) == 0;
        }
        if (result instanceof OptionalInt o) {
            return o.isEmpty();
        }
        if (result instanceof OptionalLong o) {
            return o.isEmpty();
        }
        if (result instanceof OptionalDouble o) {
            return o.isEmpty();
        }
        if (SPRING_DATA) {
            return SpringDataEmpty.isEmpty(result);
        }
        return false;
    }

    private static Supplier<@Nullable Object> constant(Object value) {
        return () -> value;
    }

    private static @Nullable Supplier<@Nullable Object> primitiveZero(Class<?> type) {
        if (type == boolean.class) {
            return constant(Boolean.FALSE);
        }
        if (type == long.class) {
            return constant(0L);
        }
        if (type == int.class) {
            return constant(0);
        }
        if (type == short.class) {
            return constant((short) 0);
        }
        if (type == byte.class) {
            return constant((byte) 0);
        }
        if (type == double.class) {
            return constant(0.0d);
        }
        if (type == float.class) {
            return constant(0.0f);
        }
        return null; // char: no value means "nothing"
    }

    private static @Nullable Supplier<@Nullable Object> boxedZero(Class<?> type) {
        if (type == Long.class) {
            return constant(0L);
        }
        if (type == Integer.class) {
            return constant(0);
        }
        if (type == Short.class) {
            return constant((short) 0);
        }
        if (type == Byte.class) {
            return constant((byte) 0);
        }
        if (type == Double.class) {
            return constant(0.0d);
        }
        if (type == Float.class) {
            return constant(0.0f);
        }
        if (type == java.math.BigInteger.class) {
            return constant(java.math.BigInteger.ZERO);
        }
        if (type == java.math.BigDecimal.class) {
            return constant(java.math.BigDecimal.ZERO);
        }
        if (type == Number.class) {
            return constant(0);
        }
        return null;
    }

    private static @Nullable Supplier<@Nullable Object> emptyContainer(Class<?> type) {
        if (type.isInterface()) {
            if (type == Iterator.class) {
                return Collections::emptyIterator;
            }
            if (type == NavigableSet.class || type == SortedSet.class) {
                return Collections::emptyNavigableSet;
            }
            if (type == NavigableMap.class || type == SortedMap.class) {
                return Collections::emptyNavigableMap;
            }
            if (type == Set.class) {
                return Set::of;
            }
            if (type == Map.class) {
                return Map::of;
            }
            if (type == List.class || type == Collection.class || type == Iterable.class) {
                return List::of;
            }
            if (type == Queue.class || type == Deque.class) {
                return ArrayDeque::new;
            }
            return null;
        }
        if (type == ArrayList.class) {
            return ArrayList::new;
        }
        if (type == HashSet.class) {
            return HashSet::new;
        }
        if (type == LinkedHashSet.class) {
            return LinkedHashSet::new;
        }
        if (type == TreeSet.class) {
            return TreeSet::new;
        }
        if (type == HashMap.class) {
            return HashMap::new;
        }
        if (type == LinkedHashMap.class) {
            return LinkedHashMap::new;
        }
        if (type == TreeMap.class) {
            return TreeMap::new;
        }
        // Any other concrete collection or map (LinkedList, ArrayDeque, a ConcurrentHashMap, one of the
        // application's own): a new one, as the method would have built it.
        if (!Modifier.isAbstract(type.getModifiers())
                && (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type))) {
            Constructor<?> noArguments = ClassUtils.getConstructorIfAvailable(type);
            if (noArguments != null) {
                return () -> BeanUtils.instantiateClass(noArguments);
            }
        }
        return null;
    }

    /** The JDK streams. */
    private static final class BaseStream {

        static boolean isStream(Class<?> type) {
            return java.util.stream.BaseStream.class.isAssignableFrom(type);
        }

        static @Nullable Supplier<@Nullable Object> emptyOf(Class<?> type) {
            if (type == Stream.class) {
                return Stream::empty;
            }
            if (type == IntStream.class) {
                return IntStream::empty;
            }
            if (type == LongStream.class) {
                return LongStream::empty;
            }
            if (type == DoubleStream.class) {
                return DoubleStream::empty;
            }
            return null;
        }
    }

    /** Spring Data's paging types; a nested class so that Spring Data stays optional. */
    private static final class SpringDataEmpty {

        static @Nullable Supplier<@Nullable Object> forType(Class<?> type) {
            if (type == org.springframework.data.domain.Page.class) {
                return org.springframework.data.domain.Page::empty;
            }
            if (type == org.springframework.data.domain.Slice.class) {
                return () -> new org.springframework.data.domain.SliceImpl<>(List.of());
            }
            if (type == org.springframework.data.util.Streamable.class) {
                return org.springframework.data.util.Streamable::empty;
            }
            if (org.springframework.data.util.Streamable.class.isAssignableFrom(type)) {
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
            Class<?> streamable = org.springframework.data.util.Streamable.class;
            Constructor<?> constructor = ClassUtils.getConstructorIfAvailable(type, streamable);
            if (constructor != null) {
                return () -> BeanUtils.instantiateClass(constructor, org.springframework.data.util.Streamable.empty());
            }
            for (String name : List.of("of", "valueOf")) {
                Method factory = ClassUtils.getStaticMethod(type, name, streamable);
                if (factory != null && type.isAssignableFrom(factory.getReturnType())) {
                    ReflectionUtils.makeAccessible(factory);
                    return () -> ReflectionUtils.invokeMethod(factory, null,
                            org.springframework.data.util.Streamable.empty());
                }
            }
            return null;
        }

        /** For a {@code Page} or {@code Slice} returned by a method that takes a {@code Pageable}: one of that size. */
        static @Nullable Function<@Nullable Object[], @Nullable Object> forPagedCall(Class<?> type, Method method) {
            boolean page = type == org.springframework.data.domain.Page.class;
            if (!page && type != org.springframework.data.domain.Slice.class) {
                return null;
            }
            Class<?>[] parameters = method.getParameterTypes();
            for (int i = 0; i < parameters.length; i++) {
                if (org.springframework.data.domain.Pageable.class.isAssignableFrom(parameters[i])) {
                    int index = i;
                    return arguments -> {
                        var pageable = (arguments[index] instanceof org.springframework.data.domain.Pageable asked)
                                ? asked : org.springframework.data.domain.Pageable.unpaged();
                        return page ? org.springframework.data.domain.Page.empty(pageable)
                                : new org.springframework.data.domain.SliceImpl<>(List.of(), pageable, false);
                    };
                }
            }
            return null;
        }

        static boolean isEmpty(Object result) {
            if (result instanceof org.springframework.data.domain.Slice<?> slice) {
                return !slice.hasContent();
            }
            if (result instanceof org.springframework.data.util.Streamable<?> streamable) {
                return streamable.isEmpty();
            }
            return false;
        }
    }

    /** Reactor's types; a nested class so that Reactor stays optional. */
    private static final class ReactorEmpty {

        static @Nullable Supplier<@Nullable Object> forType(Class<?> type) {
            if (type == reactor.core.publisher.Mono.class) {
                return reactor.core.publisher.Mono::empty;
            }
            if (type == reactor.core.publisher.Flux.class) {
                return reactor.core.publisher.Flux::empty;
            }
            return null;
        }
    }
}
