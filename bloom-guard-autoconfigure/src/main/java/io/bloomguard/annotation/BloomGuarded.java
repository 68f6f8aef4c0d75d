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
 *
 * <p>A key that is a collection or an array holds one key per element: the call's keys are checked in one batch
 * (one round trip to a shared filter) and the method runs with only the elements that might exist, in a collection
 * of the same kind; with none left, it answers empty without running.
 *
 * <pre>{@code
 * @BloomGuarded(filter = "users")
 * List<User> findAllById(Iterable<Long> ids);
 *
 * @BloomGuarded(filter = "skus", key = "#skus", elementKey = "#tenant + ':' + #e")
 * List<Product> findByTenantAndSkuIn(String tenant, List<String> skus);
 * }</pre>
 *
 * @since 0.1.0
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

    /**
     * For a key that is a collection or array: SpEL expression over each element ({@code #e}) and the method's
     * parameters that yields the element's key, e.g. {@code "#e.tenant + ':' + #e.sku"}. Empty: the element itself.
     */
    String elementKey() default "";
}
