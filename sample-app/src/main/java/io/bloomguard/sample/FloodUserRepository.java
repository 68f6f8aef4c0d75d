package io.bloomguard.sample;

import io.bloomguard.annotation.BloomGuarded;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.repository.Repository;

import java.util.Optional;

/**
 * One user lookup three ways, for {@link FloodController} and the flood benchmark: as written, with Spring Cache
 * caching empty results too (the usual defence without a filter), and behind the guard alone. The three run the
 * same query, so only what stands in front of it differs. The application's own lookups go through
 * {@link UserRepository}.
 */
public interface FloodUserRepository extends Repository<User, Long> {

    Optional<User> findUnguardedById(Long id);

    /** Caches every answer, "absent" included: a repeated absent id costs no query, a new one does. */
    @Cacheable(cacheNames = "user-lookups")
    Optional<User> findCachedById(Long id);

    @BloomGuarded(filter = "users")
    Optional<User> findGuardedById(Long id);
}
