package io.bloomguard.benchmarks.guard;

import io.bloomguard.annotation.BloomGuarded;
import org.springframework.data.jpa.repository.JpaRepository;

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

    /** The baseline of the single-key calls: the same proxy, no guard. */
    default Optional<Item> findUnguarded(Long id) {
        return FOUND;
    }

    /** The baseline of the composite-key call. */
    default Optional<Item> findUnguarded(String tenant, String sku) {
        return FOUND;
    }
}
