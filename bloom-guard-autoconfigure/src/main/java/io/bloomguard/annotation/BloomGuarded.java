package io.bloomguard.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Answers a call at once, with the empty value of its return type, when the named filter says its key
 * cannot exist; otherwise the method runs as written. Works on Spring Data repository interface methods and
 * on methods of any Spring bean, and runs before {@code @Cacheable} and {@code @Transactional}.
 *
 * <pre>{@code
 * @BloomGuarded(filter = "users")
 * Optional<User> findById(Long id);
 *
 * @BloomGuarded(filter = "skus", key = "#tenant + ':' + #sku")
 * Product findBySku(String tenant, String sku);
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BloomGuarded {

    /** Name of a filter declared under {@code bloom-guard.filters}. */
    String filter();

    /**
     * SpEL expression over the method's parameters ({@code #id}, {@code #p0}) that yields the key. Empty: the
     * method's single parameter.
     */
    String key() default "";
}
