package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.UnknownFilterException;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Reads {@code @BloomGuarded}, {@code @BloomPut} and {@code @BloomRemove} off a method and resolves them into operations, refusing
 * what cannot work: an unknown filter, a method guarded by the filter it puts into, a guard on a local filter filled
 * by puts alone (empty after every restart), a return type with no empty
 * value, a method no proxy can intercept, a delete whose result cannot prove that it deleted ({@link DeleteProof});
 * the key expressions are {@link KeyExpressionParser}'s to check.
 */
final class BloomAnnotationParser {

    private final BloomFilterRegistry registry;
    private final KeyExpressionParser keys = new KeyExpressionParser();

    BloomAnnotationParser(BloomFilterRegistry registry) {
        this.registry = registry;
    }

    /**
     * The operations of the annotations on {@code method} (not a bridge method), or {@code null} when it carries
     * neither.
     *
     * @throws InvalidBloomAnnotationException when an annotation cannot work as written
     */
    @Nullable MethodOperations parse(Method method, @Nullable Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        BloomGuarded guarded = find(specific, method, BloomGuarded.class);
        BloomPut put = find(specific, method, BloomPut.class);
        BloomRemove remove = find(specific, method, BloomRemove.class);
        if (guarded == null && put == null && remove == null) {
            return null;
        }
        String description = describe(method, targetClass);
        if (guarded != null && put != null && guarded.filter().equals(put.filter())) {
            throw new InvalidBloomAnnotationException(asWritten(guarded) + " with " + asWritten(put), description,
                    "the method is guarded by the filter it puts into, so a new key is rejected before the method can"
                            + " write it, and its record is never written",
                    "Guard the methods that look records up and put on the ones that write them; to add a key and learn"
                            + " whether it was new (deduplication), call the filter's put() and act on its answer");
        }
        // Key expressions name the parameters of the method that carries the annotation: behind a JDK proxy a call
        // arrives at the interface's method, whose parameter names may differ from the implementation's.
        GuardOperation guard = (guarded != null) ? guardOperation(guarded,
                new AnnotatedMethod(asWritten(guarded), annotatedOn(specific, method, BloomGuarded.class), targetClass,
                        description)) : null;
        PutOperation putOperation = (put != null) ? putOperation(put,
                new AnnotatedMethod(asWritten(put), annotatedOn(specific, method, BloomPut.class), targetClass,
                        description)) : null;
        RemoveOperation removeOperation = (remove != null) ? removeOperation(remove,
                new AnnotatedMethod(asWritten(remove), annotatedOn(specific, method, BloomRemove.class), targetClass,
                        description)) : null;
        if (put != null && remove != null && put.filter().equals(remove.filter())) {
            throw new InvalidBloomAnnotationException(asWritten(put) + " with " + asWritten(remove), description,
                    "the method both puts a key into the filter and removes one from it",
                    "Put on the methods that write records and remove on the ones that delete them");
        }
        return new MethodOperations(guard, putOperation, removeOperation);
    }

    /**
     * An annotation on a method no proxy can intercept would do nothing, silently: a {@code @BloomPut} there
     * would leave its keys out of the filter, which would then reject records that exist.
     *
     * @throws InvalidBloomAnnotationException for the first such method of the class or its superclasses
     */
    void checkInterceptable(Class<?> targetClass) {
        for (Class<?> type = targetClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                int modifiers = method.getModifiers();
                String kind = Modifier.isPrivate(modifiers) ? "private"
                        : Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
                // Synthetic: the compiler's, such as Kotlin's static $suspendImpl of an open suspend fun.
                if (kind == null || method.isBridge() || method.isSynthetic()) {
                    continue;
                }
                BloomGuarded guarded = AnnotatedElementUtils.findMergedAnnotation(method, BloomGuarded.class);
                BloomPut put = AnnotatedElementUtils.findMergedAnnotation(method, BloomPut.class);
                BloomRemove remove = AnnotatedElementUtils.findMergedAnnotation(method, BloomRemove.class);
                if (guarded != null || put != null || remove != null) {
                    String written = (guarded != null) ? asWritten(guarded)
                            : (put != null) ? asWritten(put) : asWritten(remove);
                    throw new InvalidBloomAnnotationException(written,
                            type.getSimpleName() + "." + method.getName(), "the method is " + kind + ", so Spring's"
                                    + " proxy never sees its calls and the annotation would do nothing",
                            "Make the method public and neither static nor final, and call it through the bean (not"
                                    + " from inside its own class)");
                }
            }
        }
    }

    /** {@code Type.method}, naming the type the user wrote: their repository interface, not {@code CrudRepository}. */
    static String describe(Method method, @Nullable Class<?> targetClass) {
        Class<?> type = method.getDeclaringClass();
        if (targetClass != null && Proxy.isProxyClass(targetClass)) {
            for (Class<?> candidate : targetClass.getInterfaces()) {
                if (type.isAssignableFrom(candidate)) {
                    type = candidate;
                    break;
                }
            }
        }
        else if (targetClass != null && type.isAssignableFrom(targetClass)) {
            type = targetClass;
        }
        return type.getSimpleName() + "." + method.getName();
    }

    private GuardOperation guardOperation(BloomGuarded annotation, AnnotatedMethod annotated) {
        NamedBloomFilter filter = filter(annotation.filter(), annotated);
        if (filter.spec().writes().putsOnly() && filter.spec().backend() instanceof FilterSpec.Local) {
            // Its bits live in this JVM and it has no key source: after a restart it is empty and READY, and would
            // reject every record written before.
            throw annotated.invalid("filter '" + filter.name() + "' is a local filter filled by puts alone"
                            + " (puts-only: true): it starts empty at every restart, with no key source to read the"
                            + " records written before, and would reject all of them",
                    "Give filter '" + filter.name() + "' a key source (remove puts-only and set bloom-guard.filters."
                            + filter.name() + ".preload.sql or declare a BloomKeySource or ReactiveBloomKeySource"
                            + " bean), or keep it in Redis"
                            + " (bloom-guard.filters." + filter.name() + ".backend: redis), whose bits outlive a"
                            + " restart; to deduplicate, call the filter's put() and act on its answer, without"
                            + " @BloomGuarded");
        }
        KeyBatch batch = keys.parseBatch(annotation.key(), annotation.elementKey(), annotated);
        // A batch's key is the parameter holding the keys, which only the batch reads.
        KeyExpression key = (batch != null) ? KeyExpression.argument(batch.parameter())
                : keys.parse(annotation.key(), false, annotated);
        Class<?> returnType = annotated.returnClass();
        Function<@Nullable Object[], @Nullable Object> emptyValue = annotated.coroutine()
                ? CoroutineSignature.emptyValue(annotated) : EmptyValues.forCall(returnType, annotated.method());
        if (emptyValue == null) {
            throw annotated.coroutine() ? CoroutineSignature.noEmptyValue(annotated) : annotated.invalid("return type " + returnType.getName()
                    + " has no empty value to answer a rejected call with", EmptyValues.whatToReturnInstead(returnType));
        }
        ResultKind kind = ResultKind.of(returnType);
        // A Mono<Void> says no more than a void method; the value type of a Mono or Flux is its type argument.
        Class<?> answerType = kind.deferred() ? annotated.returnType().getGeneric(0).resolve(Object.class) : returnType;
        boolean answersWithValue = answerType != void.class && answerType != Void.class;
        return new GuardOperation(filter, key, emptyValue, answersWithValue, annotated.description(), kind, batch);
    }

    private PutOperation putOperation(BloomPut annotation, AnnotatedMethod annotated) {
        NamedBloomFilter filter = filter(annotation.filter(), annotated);
        KeyExpression key = keys.parse(annotation.key(), true, annotated);
        return new PutOperation(filter, key, annotated.description(), ResultKind.of(annotated.returnClass()));
    }

    /**
     * A remove needs a counting filter, a method that has deleted when it returns (a {@code Mono}, {@code Flux} or
     * future deletes later, in a transaction this interceptor cannot see commit), and a proof that it deleted: its
     * result or its condition ({@link DeleteProof}).
     */
    private RemoveOperation removeOperation(BloomRemove annotation, AnnotatedMethod annotated) {
        NamedBloomFilter filter = filter(annotation.filter(), annotated);
        if (!filter.spec().sizing().type().removable()) {
            throw annotated.invalid("filter '" + filter.name() + "' is a plain Bloom filter (type: "
                    + filter.spec().sizing().type().name().toLowerCase(Locale.ROOT) + "), whose bits do not record"
                    + " how many keys set them, so it cannot remove a key",
                    "Declare bloom-guard.filters." + filter.name() + ".type: counting (four times the memory) or"
                            + " cuckoo (about the same memory, local backend), or remove the @BloomRemove and let a rebuild drop deleted keys");
        }
        if (ResultKind.of(annotated.returnClass()).deferred()) {
            String returns = annotated.coroutine() ? "is a Kotlin suspend function or returns a Flow, a "
                    + annotated.returnClass().getSimpleName() + " behind the proxy" : "returns a "
                    + annotated.returnClass().getSimpleName();
            throw annotated.invalid("it " + returns + ", which deletes"
                            + " after the method returns, in a transaction bloom-guard cannot watch commit",
                    "Call the filter's remove(key) once the delete has committed (for example in"
                            + " .then(Mono.fromRunnable(...)) after the transactional operator)");
        }
        KeyExpression key = keys.parse(annotation.key(), true, annotated);
        @Nullable KeyExpression condition = annotation.condition().isBlank() ? null
                : keys.parseCondition(annotation.condition(), annotated);
        return new RemoveOperation(filter, key, DeleteProof.of(annotated, condition), annotated.description());
    }

    private NamedBloomFilter filter(String name, AnnotatedMethod annotated) {
        try {
            return registry.get(name);
        }
        catch (UnknownFilterException ex) {
            List<String> known = registry.all().stream().map(NamedBloomFilter::name).toList();
            throw annotated.invalid("no filter named '" + name + "'; configured: "
                            + (known.isEmpty() ? "none" : String.join(", ", known)),
                    "Use one of the configured names, or declare bloom-guard.filters." + name + " in your configuration",
                    ex);
        }
    }

    private static <A extends Annotation> @Nullable A find(Method specific, Method method, Class<A> type) {
        A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, type);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
        }
        return annotation;
    }

    /**
     * Of the two methods {@link #find} looks at, the one the annotation is written on: {@code specific} only if it
     * carries the annotation itself (a JDK proxy's method finds its interface's, but has no parameter names).
     */
    private static Method annotatedOn(Method specific, Method method, Class<? extends Annotation> type) {
        return AnnotatedElementUtils.isAnnotated(specific, type) ? specific : method;
    }

    /** The annotation as the user wrote it, for error messages. */
    private static String asWritten(BloomGuarded guarded) {
        String written = asWritten("@BloomGuarded", guarded.filter(), guarded.key());
        return guarded.elementKey().isEmpty() ? written
                : written.substring(0, written.length() - 1) + ", elementKey = \"" + guarded.elementKey() + "\")";
    }

    private static String asWritten(BloomPut put) {
        return asWritten("@BloomPut", put.filter(), put.key());
    }

    private static String asWritten(BloomRemove remove) {
        String written = asWritten("@BloomRemove", remove.filter(), remove.key());
        return remove.condition().isEmpty() ? written
                : written.substring(0, written.length() - 1) + ", condition = \"" + remove.condition() + "\")";
    }

    private static String asWritten(String annotation, String filter, String key) {
        return annotation + "(filter = \"" + filter + "\"" + (key.isEmpty() ? "" : ", key = \"" + key + "\"") + ")";
    }
}
