package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * How many rows a call of a {@code @BloomRemove} method proves it deleted, decided once at startup from what the
 * method returns and its {@code condition}. A delete that deleted nothing (its row did not exist, was not the caller's,
 * or another transaction deleted it first) must remove nothing: the key's counts then belong to other keys.
 *
 * <p>Proof comes from the result: a count ({@code int}, {@code long}, boxed or not), {@code true}, the deleted entity
 * (not {@code null}; an {@code Optional} of it that is present), or the deleted entities (a collection or array: its
 * size); or from the condition, which must then be {@code true} as well. An entity is the domain type of the Spring
 * Data repository the method is on, or a class that says it is one ({@code @Entity}, an {@code @Id} field,
 * {@code Persistable}). A method whose result proves nothing and that has no condition is refused at startup.
 */
final class DeleteProof {

    /** What a condition that holds proves of a method whose result says nothing: every key it names. */
    static final long EVERY_KEY = Long.MAX_VALUE;

    private static final Set<String> ENTITY_ANNOTATIONS = Set.of("jakarta.persistence.Entity");

    private static final Set<String> ID_ANNOTATIONS = Set.of("jakarta.persistence.Id", "jakarta.persistence.EmbeddedId",
            "org.springframework.data.annotation.Id");

    private static final @Nullable Class<?> PERSISTABLE =
            EmptyValues.optionalClass("org.springframework.data.domain.Persistable");

    private static final @Nullable Class<?> REPOSITORY =
            EmptyValues.optionalClass("org.springframework.data.repository.Repository");

    private final @Nullable ToLongFunction<@Nullable Object> rowsInResult;
    private final @Nullable KeyExpression condition;

    private DeleteProof(@Nullable ToLongFunction<@Nullable Object> rowsInResult, @Nullable KeyExpression condition) {
        this.rowsInResult = rowsInResult;
        this.condition = condition;
    }

    /**
     * The proof of {@code annotated}'s deletes: its result's, its condition's, or both.
     *
     * @throws InvalidBloomAnnotationException when neither can prove a delete
     */
    static DeleteProof of(AnnotatedMethod annotated, @Nullable KeyExpression condition) {
        Class<?> domainType = repositoryDomainType(annotated.targetClass());
        ToLongFunction<@Nullable Object> rowsInResult = rowsIn(annotated.returnType(), domainType);
        if (rowsInResult == null && condition == null) {
            throw annotated.invalid("it returns " + annotated.returnType() + ", which does not say whether the call"
                    + " deleted anything (a delete of a row that does not exist, that is not the caller's, or that"
                    + " another transaction deleted first looks the same), and removing the key of a row that is still"
                    + " there would make it \"not found\"", fix(domainType));
        }
        return new DeleteProof(rowsInResult, condition);
    }

    /**
     * How many rows a call that returned {@code result} proves it deleted: 0 for none, {@link #EVERY_KEY} when its
     * condition held and the result says nothing.
     *
     * @throws RuntimeException when the condition cannot be evaluated
     */
    long rowsDeleted(Object[] args, @Nullable Object result) {
        if (condition != null && !Boolean.TRUE.equals(condition.evaluate(args, result))) {
            return 0;
        }
        return (rowsInResult != null) ? rowsInResult.applyAsLong(result) : EVERY_KEY;
    }

    /** How a result of {@code type} counts the rows it deleted, or {@code null} when it cannot. */
    private static @Nullable ToLongFunction<@Nullable Object> rowsIn(ResolvableType type,
            @Nullable Class<?> domainType) {
        Class<?> resolved = type.resolve(Object.class);
        if (resolved == int.class || resolved == long.class || resolved == Integer.class || resolved == Long.class) {
            return result -> (result instanceof Number count) ? Math.max(count.longValue(), 0) : 0;
        }
        if (resolved == boolean.class || resolved == Boolean.class) {
            return result -> Boolean.TRUE.equals(result) ? 1 : 0;
        }
        if (resolved == Optional.class) {
            ToLongFunction<@Nullable Object> inner = rowsIn(type.getGeneric(0), domainType);
            if (inner == null) {
                return null;
            }
            return result -> (result instanceof Optional<?> value && value.isPresent())
                    ? inner.applyAsLong(value.get()) : 0;
        }
        if (resolved.isArray() && isEntity(type.getComponentType().resolve(Object.class), domainType)) {
            return result -> (result != null) ? Array.getLength(result) : 0;
        }
        if (Collection.class.isAssignableFrom(resolved)
                && isEntity(type.as(Collection.class).getGeneric(0).resolve(Object.class), domainType)) {
            return result -> (result instanceof Collection<?> deleted) ? deleted.size() : 0;
        }
        if (isEntity(resolved, domainType)) {
            return result -> (result != null) ? 1 : 0;
        }
        return null;
    }

    private static boolean isEntity(Class<?> type, @Nullable Class<?> domainType) {
        if (type == Object.class || type.isPrimitive() || type.isArray() || type.isEnum()) {
            return false;
        }
        if (domainType != null && domainType != Object.class && domainType.isAssignableFrom(type)) {
            return true;
        }
        if (PERSISTABLE != null && PERSISTABLE.isAssignableFrom(type)) {
            return true;
        }
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            if (annotatedWith(current, ENTITY_ANNOTATIONS)) {
                return true;
            }
            for (Field field : current.getDeclaredFields()) {
                if (annotatedWith(field, ID_ANNOTATIONS)) {
                    return true;
                }
            }
            for (Method method : current.getDeclaredMethods()) {
                if (annotatedWith(method, ID_ANNOTATIONS)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** By name: neither JPA nor Spring Data need be on the classpath. */
    private static boolean annotatedWith(AnnotatedElement element, Set<String> names) {
        for (Annotation annotation : element.getDeclaredAnnotations()) {
            if (names.contains(annotation.annotationType().getName())) {
                return true;
            }
        }
        return false;
    }

    /** The entity type of a Spring Data repository or its proxy: {@code User} of a {@code Repository<User, Long>}. */
    private static @Nullable Class<?> repositoryDomainType(@Nullable Class<?> targetClass) {
        if (REPOSITORY == null || targetClass == null || !REPOSITORY.isAssignableFrom(targetClass)) {
            return null;
        }
        return ResolvableType.forClass(targetClass).as(REPOSITORY).getGeneric(0).resolve();
    }

    private static String fix(@Nullable Class<?> domainType) {
        String proving = "Declare the delete so that it returns what it deleted, the rows being counted by the"
                + " database: ";
        String condition = "; or add condition = \"...\" that is true only when the row was deleted";
        if (domainType == null) {
            return proving + "the count of a JDBC update or a @Modifying query (int or long), true, or the deleted"
                    + " entity" + condition;
        }
        String entity = domainType.getSimpleName();
        String alias = entity.substring(0, 1).toLowerCase(Locale.ROOT);
        return proving + "@Transactional @Modifying @Query(\"delete from " + entity + " " + alias + " where " + alias
                + ".id = :id\") int delete" + entity + "ById(Long id), or a derived @Transactional long removeById(Long"
                + " id)" + condition;
    }
}
