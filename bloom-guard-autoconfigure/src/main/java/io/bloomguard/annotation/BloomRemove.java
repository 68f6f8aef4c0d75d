package io.bloomguard.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Takes a deleted record's key back out of a counting filter ({@code type: counting}) or a
 * cuckoo filter ({@code type: cuckoo}), so that lookups of it are
 * rejected again. A key is removed only when the call provably deleted its row, and only once that delete has
 * committed:
 * <ul>
 * <li>the result says so: a count above 0 ({@code int}, {@code long}), {@code true}, the deleted entity (not
 * {@code null}; an {@code Optional} that is present), or the deleted entities (a collection or array that is not
 * empty); or {@link #condition()} says so. A method whose result proves nothing ({@code void}, such as Spring Data's
 * {@code deleteById}) and that has no condition stops startup.</li>
 * <li>Several keys ({@code key = "#ids"}) are removed only when the count, or the number of deleted entities, is at
 * least the number of distinct keys; otherwise none is (logged once per method).</li>
 * <li>After the commit of the method's transaction, unless it rolls back, or a savepoint taken before the delete is
 * rolled back to ({@code Propagation.NESTED}, {@code TransactionStatus.rollbackToSavepoint}). With no transaction, when
 * the method returns; if it throws, never. Inside a transaction whose synchronization is off, never (logged).</li>
 * </ul>
 *
 * <pre>{@code
 * @BloomRemove(filter = "users")
 * @Transactional
 * @Modifying
 * @Query("delete from User u where u.id = :id")
 * int deleteUserById(Long id);                       // the number of rows deleted
 *
 * @BloomRemove(filter = "users", key = "#ids")
 * @Transactional
 * List<User> deleteAllByIdIn(Collection<Long> ids);  // a derived delete: the deleted entities
 * }</pre>
 *
 * A remove that cannot be proven leaves the key in, as a false positive (one extra query) until the next rebuild;
 * a remove of a key whose row was not deleted would take counts that belong to other keys, and could make an existing
 * record "not found". Spring Data's {@code deleteAllById} and {@code deleteAll} call {@code deleteById} and
 * {@code delete} inside the repository, where no proxy sees them. A plain Bloom filter cannot remove, and a
 * {@code @BloomRemove} on one stops startup.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BloomRemove {

    /** Name of a filter declared under {@code bloom-guard.filters}, with {@code type: counting} or {@code cuckoo}. */
    String filter();

    /**
     * SpEL expression over the parameters and {@code #result} that yields the key, or a collection or array of keys.
     * Empty: the method's single parameter.
     */
    String key() default "";

    /**
     * SpEL expression over the parameters and {@code #result} that must be {@code true} for the key to be removed:
     * the proof that the call deleted the key's row, for a method whose result does not say so by itself (e.g.
     * {@code "#result.deleted"}). On a method whose result does, both must hold. Empty: the result alone decides.
     */
    String condition() default "";
}
