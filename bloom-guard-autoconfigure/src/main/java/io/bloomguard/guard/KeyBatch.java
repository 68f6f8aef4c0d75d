package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.core.CollectionFactory;
import org.springframework.util.CollectionUtils;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The keys of a guarded call whose key parameter holds many (a collection or an array): how to read its elements and
 * their keys, and how to make the same argument with only some of its elements, for {@link PrunedLookup}.
 *
 * <p>The pruned argument is of the same kind as the caller's: an array of the same component type, or a collection
 * as Spring's {@link CollectionFactory#createApproximateCollection} makes one like it (a {@code List} stays a list in
 * order, a {@code SortedSet} keeps its comparator, any other {@code Set} keeps its order), or else one of the declared
 * parameter type.
 */
final class KeyBatch {

    private final int parameter;
    private final Class<?> parameterClass;
    private final @Nullable KeyExpression elementKey;
    private final int elementIndex;

    private KeyBatch(int parameter, Class<?> parameterClass, @Nullable KeyExpression elementKey, int elementIndex) {
        this.parameter = parameter;
        this.parameterClass = parameterClass;
        this.elementKey = elementKey;
        this.elementIndex = elementIndex;
    }

    /**
     * @param parameter      the index of the parameter holding the keys
     * @param parameterClass its declared type: an {@code Iterable} or an array
     * @param elementKey     each element's key, over the arguments and the element at {@code elementIndex}
     *                       ({@code #e}), or {@code null} when the element is its key
     * @param elementIndex   one past the declared parameters (a Kotlin {@code suspend} function's {@code Continuation}
     *                       is not one)
     * @throws InvalidBloomAnnotationException when a collection of fewer elements cannot be made for that type
     */
    static KeyBatch of(int parameter, Class<?> parameterClass, @Nullable KeyExpression elementKey, int elementIndex,
            AnnotatedMethod annotated) {
        if (!parameterClass.isArray() && parameterClass != Iterable.class) {
            try {
                CollectionFactory.createCollection(parameterClass, 0);
            }
            catch (RuntimeException ex) {
                throw annotated.invalid("the keys are the elements of a " + parameterClass.getName()
                                + ", and bloom-guard cannot make one with only the elements that might exist",
                        "Declare the parameter as Iterable, Collection, List, Set or an array", ex);
            }
        }
        return new KeyBatch(parameter, parameterClass, elementKey, elementIndex);
    }

    /** The call's elements, in order, or {@code null} when the argument itself is {@code null}. */
    @Nullable List<@Nullable Object> elements(Object[] args) {
        Object argument = args[parameter];
        if (argument == null) {
            return null;
        }
        if (argument.getClass().isArray()) {
            return new ArrayList<>(CollectionUtils.arrayToList(argument));
        }
        List<@Nullable Object> elements = (argument instanceof Collection<?> collection)
                ? new ArrayList<>(collection.size()) : new ArrayList<>();
        ((Iterable<?>) argument).forEach(elements::add);
        return elements;
    }

    /**
     * The key of each element: {@code null} for one that has none (a {@code null} element, or one its
     * {@code elementKey} makes {@code null} of).
     *
     * @param problem told of an element whose key expression failed; its key is then {@code null}
     */
    @Nullable Object[] keys(Object[] args, List<@Nullable Object> elements,
            java.util.function.Consumer<RuntimeException> problem) {
        @Nullable Object[] keys = new Object[elements.size()];
        if (elementKey == null) {
            return elements.toArray(keys);
        }
        Object[] withElement = Arrays.copyOf(args, elementIndex + 1); // #e is one past the declared parameters
        for (int i = 0; i < keys.length; i++) {
            withElement[elementIndex] = elements.get(i);
            try {
                keys[i] = elementKey.evaluate(withElement, null);
            }
            catch (RuntimeException ex) {
                problem.accept(ex);
            }
        }
        return keys;
    }

    /** The index of the parameter that holds the keys. */
    int parameter() {
        return parameter;
    }

    /** The key parameter's argument with only the {@code kept} elements, in their order. */
    Object withOnly(Object argument, List<@Nullable Object> elements, boolean[] kept, int keptCount) {
        if (argument.getClass().isArray()) {
            Object array = Array.newInstance(argument.getClass().getComponentType(), keptCount);
            for (int i = 0, j = 0; i < kept.length; i++) {
                if (kept[i]) {
                    Array.set(array, j++, elements.get(i));
                }
            }
            return array;
        }
        Collection<@Nullable Object> collection = collectionLike(argument, keptCount);
        for (int i = 0; i < kept.length; i++) {
            if (kept[i]) {
                collection.add(elements.get(i));
            }
        }
        return collection;
    }

    private Collection<@Nullable Object> collectionLike(Object argument, int size) {
        if (argument instanceof Collection<?> original) {
            Collection<@Nullable Object> like = CollectionFactory.createApproximateCollection(original, size);
            if (parameterClass.isInstance(like)) {
                return like;
            }
        }
        return (parameterClass == Iterable.class) ? new ArrayList<>(size)
                : CollectionFactory.createCollection(parameterClass, size); // checked at startup
    }
}
