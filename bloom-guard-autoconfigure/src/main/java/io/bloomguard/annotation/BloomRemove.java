package io.bloomguard.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Takes a deleted record's key back out of a counting filter ({@code type: counting}), so that lookups of it are
 * rejected again. The key is removed only once the method's transaction has committed: a delete that rolls back
 * removes nothing. With no transaction, it is removed when the method returns; if the method throws, it is not.
 *
 * <pre>{@code
 * @BloomRemove(filter = "users")
 * void deleteById(Long id);
 *
 * @BloomRemove(filter = "users", key = "#user.id")
 * void delete(User user);
 * }</pre>
 *
 * A key that yields a collection or an array removes each element ({@code deleteAllById(Iterable<Long> ids)}).
 * Spring Data's {@code deleteAllById} and {@code deleteAll} call {@code deleteById} and {@code delete} inside the
 * repository, where no proxy sees them: annotate each delete method the application calls. Remove only keys that
 * were put: a key that never was takes counts that belong to other keys. A plain Bloom filter cannot remove, and a
 * {@code @BloomRemove} on one stops startup.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BloomRemove {

    /** Name of a filter declared under {@code bloom-guard.filters}, with {@code type: counting}. */
    String filter();

    /**
     * SpEL expression over the parameters and {@code #result} that yields the key. Empty: the method's single
     * parameter.
     */
    String key() default "";
}
