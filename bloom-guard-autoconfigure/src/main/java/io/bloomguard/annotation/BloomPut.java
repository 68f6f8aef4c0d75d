package io.bloomguard.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Adds a key to the named filter when the method writes a record, so that the filter stays complete. The key
 * is in the filter no later than the commit of the transaction the method runs in ("The key is in before the
 * commit" in docs/guard.md lists the exceptions, such as a method with no transaction).
 *
 * <pre>{@code
 * @BloomPut(filter = "users", key = "#result.id")
 * <S extends User> S save(S user);
 * }</pre>
 *
 * A key that can be computed from the parameters alone is put before the method runs. A key that uses
 * {@code #result}, or that is still {@code null} before the method runs (such as {@code #user.id} when the
 * database assigns the id), is put when it returns, from inside its transaction. Where its row may be visible
 * before that (no transaction, say), lookups this instance's filter answers "absent" meanwhile wait for the put.
 * A key that yields a collection or an array puts each element. If
 * the method throws, a key put before it ran stays (a false positive, never a false negative).
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BloomPut {

    /** Name of a filter declared under {@code bloom-guard.filters}. */
    String filter();

    /**
     * SpEL expression over the parameters and {@code #result} that yields the key. Empty: the method's single
     * parameter.
     */
    String key() default "";
}
