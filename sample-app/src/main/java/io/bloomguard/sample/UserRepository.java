package io.bloomguard.sample;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.jpa.repository.JpaRepository;

import java.util.Optional;

/**
 * Users, with the guard in front of the lookups by id. The guard runs before the cache, so an absent id costs
 * neither a cache entry nor a query.
 */
public interface UserRepository extends JpaRepository<User, Long> {

    /**
     * Caches found users only: absent ids are the filter's job, and a cached "absent" would hide a user
     * created later under that id.
     */
    @Override
    @BloomGuarded(filter = "users")
    @Cacheable(cacheNames = "users", unless = "#result == null")
    Optional<User> findById(Long id);

    @Override
    @BloomGuarded(filter = "users")
    boolean existsById(Long id);

    /** Every write path adds the new id, so a user is findable as soon as its transaction commits. */
    @Override
    @BloomPut(filter = "users", key = "#result.id")
    <S extends User> S save(S user);
}
