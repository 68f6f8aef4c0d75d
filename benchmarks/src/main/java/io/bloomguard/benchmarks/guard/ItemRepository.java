package io.bloomguard.benchmarks.guard;

import io.bloomguard.annotation.BloomGuarded;
import org.springframework.data.jpa.repository.JpaRepository;

import java.util.List;
import java.util.Optional;

/**
 * The repository {@link GuardCallBenchmark} calls. Rejected calls go to real query methods (a rejection returns
 * before the query would run); the passed call and the baselines are default methods that return at once, so that
 * the database is never part of what is measured and the only difference between a guarded method and its baseline
 * is the guard.
 */
public interface ItemRepository extends JpaRepository<Item, Long> {

    /** What the methods that return at once answer: a present value, so a passed call is not a false positive. */
    Optional<Item> FOUND = Optional.of(new Item(1, "acme", "SKU-1"));

    @Override
    @BloomGuarded(filter = "items")
    Optional<Item> findById(Long id);

    @BloomGuarded(filter = "skus", key = "#tenant + ':' + #sku")
    Optional<Item> findByTenantAndSku(String tenant, String sku);

    @BloomGuarded(filter = "items")
    default Optional<Item> findPresent(Long id) {
        return FOUND;
    }

    /** What the multi-key methods that return at once answer: found, so a passed call has no false positive. */
    List<Item> FOUND_ALL = List.of(new Item(1, "acme", "SKU-1"));

    /** A multi-key lookup ({@link PrunedCallBenchmark}), run with the ids that might exist. */
    @BloomGuarded(filter = "items")
    default List<Item> findAllPresent(List<Long> ids) {
        return FOUND_ALL;
    }

    /** The baseline of the multi-key call. */
    default List<Item> findAllUnguarded(List<Long> ids) {
        return FOUND_ALL;
    }

    /** The baseline of the single-key calls: the same proxy, no guard. */
    default Optional<Item> findUnguarded(Long id) {
        return FOUND;
    }

    /** The baseline of the composite-key call. */
    default Optional<Item> findUnguarded(String tenant, String sku) {
        return FOUND;
    }
}
