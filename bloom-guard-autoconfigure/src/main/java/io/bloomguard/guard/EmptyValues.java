package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.core.CollectionFactory;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.BaseStream;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * The value a rejected call returns, by return type: what the method itself would have answered for a key
 * that does not exist; and, the other way round, whether a method's result is such an answer.
 *
 * <table>
 * <caption>Return type → rejected value</caption>
 * <tr><td>{@code void}, any other object type (an entity, {@code String})</td><td>{@code null}</td></tr>
 * <tr><td>{@code Optional}, {@code OptionalInt/Long/Double}</td><td>empty</td></tr>
 * <tr><td>{@code List}, {@code Collection}, {@code Iterable}, {@code Set}, {@code Map} (and sorted
 * kinds), {@code Iterator}</td><td>an immutable empty one</td></tr>
 * <tr><td>{@code Queue}, {@code Deque}</td><td>a new {@code ArrayDeque}</td></tr>
 * <tr><td>concrete collections and maps Spring's {@link CollectionFactory} can build ({@code ArrayList},
 * {@code HashMap}, {@code LinkedList}, any with a no-argument constructor), {@code MultiValueMap}</td><td>a new
 * empty one</td></tr>
 * <tr><td>{@code Stream}, {@code IntStream}, {@code LongStream}, {@code DoubleStream}</td><td>a new empty one</td></tr>
 * <tr><td>arrays</td><td>an empty array</td></tr>
 * <tr><td>{@code boolean} / {@code Boolean}</td><td>{@code false}</td></tr>
 * <tr><td>numbers ({@code long}, {@code int}, {@code Long}, {@code BigDecimal}, …)</td><td>{@code 0}</td></tr>
 * <tr><td>Spring Data {@code Page}, {@code Slice}, {@code Streamable} and Streamable wrapper types</td><td>empty
 * ({@link SpringDataEmptyValues})</td></tr>
 * <tr><td>Reactor {@code Mono} / {@code Flux}</td><td>{@code Mono.empty()} / {@code Flux.empty()}, from Spring's
 * {@link ReactiveAdapterRegistry}</td></tr>
 * </table>
 *
 * {@code char}, {@code Future}, {@code CompletionStage}/{@code CompletableFuture}, Reactive Streams
 * publishers other than Reactor's and collection types nothing here can build (other interfaces such as
 * {@code BlockingQueue}, abstract classes, classes without a no-argument constructor) have no empty value: a
 * guarded method returning one is refused at startup.
 */
final class EmptyValues {

    private static final boolean SPRING_DATA = ClassUtils.isPresent("org.springframework.data.domain.Page",
            EmptyValues.class.getClassLoader());

    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
            EmptyValues.class.getClassLoader());

    private static final @Nullable Class<?> PUBLISHER = optionalClass("org.reactivestreams.Publisher");

    /** Types whose empty value is one shared instance: immutable, so every rejected call can have it. */
    private static final Map<Class<?>, Object> SHARED = sharedValues();

    /** Types whose empty value is new on each call: a stream can be used only once, a queue is added to. */
    private static final Map<Class<?>, Supplier<Object>> FRESH = Map.of(Stream.class, Stream::empty,
            IntStream.class, IntStream::empty, LongStream.class, LongStream::empty,
            DoubleStream.class, DoubleStream::empty, Queue.class, ArrayDeque::new, Deque.class, ArrayDeque::new);

    private EmptyValues() {
    }

    private static Map<Class<?>, Object> sharedValues() {
        Map<Class<?>, Object> values = new HashMap<>();
        share(values, Boolean.FALSE, boolean.class, Boolean.class);
        share(values, 0L, long.class, Long.class);
        share(values, 0, int.class, Integer.class, Number.class);
        share(values, (short) 0, short.class, Short.class);
        share(values, (byte) 0, byte.class, Byte.class);
        share(values, 0.0d, double.class, Double.class);
        share(values, 0.0f, float.class, Float.class);
        share(values, BigInteger.ZERO, BigInteger.class);
        share(values, BigDecimal.ZERO, BigDecimal.class);
        share(values, Optional.empty(), Optional.class);
        share(values, OptionalInt.empty(), OptionalInt.class);
        share(values, OptionalLong.empty(), OptionalLong.class);
        share(values, OptionalDouble.empty(), OptionalDouble.class);
        share(values, List.of(), List.class, Collection.class, Iterable.class);
        share(values, Set.of(), Set.class);
        share(values, Map.of(), Map.class);
        share(values, Collections.emptyNavigableSet(), SortedSet.class, NavigableSet.class);
        share(values, Collections.emptyNavigableMap(), SortedMap.class, NavigableMap.class);
        share(values, Collections.emptyIterator(), Iterator.class);
        return Map.copyOf(values);
    }

    private static void share(Map<Class<?>, Object> values, Object value, Class<?>... types) {
        for (Class<?> type : types) {
            values.put(type, value);
        }
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
        Object shared = SHARED.get(type);
        if (shared != null) {
            return () -> shared;
        }
        Supplier<Object> fresh = FRESH.get(type);
        if (fresh != null) {
            return fresh::get;
        }
        if (type.isArray()) {
            Object empty = Array.newInstance(type.getComponentType(), 0);
            return () -> empty;
        }
        // char, another stream or Number (an AtomicLong, a LongAdder): no value that means "nothing".
        if (type.isPrimitive() || type == Character.class || BaseStream.class.isAssignableFrom(type)
                || Number.class.isAssignableFrom(type)) {
            return null;
        }
        if (SPRING_DATA) {
            Supplier<@Nullable Object> data = SpringDataEmptyValues.forType(type);
            if (data != null) {
                return data;
            }
        }
        ReactiveAdapter reactive = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (reactive != null) {
            // Only Reactor's are checked when subscribed to (ReactiveGuard): any other promise, checked at the call,
            // would have to be answered before its work has run.
            boolean checkedOnSubscribe = ResultKind.of(type).reactive();
            Object empty = checkedOnSubscribe ? reactive.getDescriptor().getEmptyValue() : null;
            return (empty != null) ? () -> empty : null;
        }
        if (isDeferred(type)) { // a plain Future, or a Reactive Streams publisher Spring has no adapter for
            return null;
        }
        if (Iterable.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                || Iterator.class.isAssignableFrom(type)) {
            return newCollection(type);
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
            Function<@Nullable Object[], @Nullable Object> paged = SpringDataEmptyValues.forPagedCall(returnType, method);
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
            return "Return List, Set, Collection, Map, Queue or Deque, or a concrete collection or map with a"
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
        return !isEmpty(result) && !(result instanceof BaseStream<?, ?>) && !(result instanceof Iterator<?>)
                && !(PUBLISHER != null && PUBLISHER.isInstance(result));
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
        return SPRING_DATA && SpringDataEmptyValues.isEmpty(result);
    }

    /**
     * A new empty collection or map of the type, as the method would have built it, made by Spring's
     * {@link CollectionFactory}; {@code null} when it cannot make one, which is found out now, at startup.
     */
    private static @Nullable Supplier<@Nullable Object> newCollection(Class<?> type) {
        Supplier<@Nullable Object> create = Map.class.isAssignableFrom(type)
                ? () -> CollectionFactory.createMap(type, 0) : () -> CollectionFactory.createCollection(type, 0);
        try {
            create.get();
            return create;
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
    }
}
