package io.bloomguard.autoconfigure;

import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.redis.RedisAccessDeniedException;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/**
 * Preloads every filter before the application's own runners, and before Spring Boot reports the application
 * ready: readiness (and so a Kubernetes readiness probe) waits for the filters, while liveness does not.
 * Requests served meanwhile pass through the filters that are still loading. A shared filter that Redis refuses
 * (no or a wrong password, an ACL that denies a command it needs) stops the startup: it is a configuration mistake,
 * and {@link BloomGuardFailureAnalyzer} says what to change. (A filter that cannot reach Redis does not: it holds
 * readiness instead, see {@link io.bloomguard.preload.SharedFilterReadiness}.)
 */
final class FilterPreloadRunner implements ApplicationRunner, Ordered {

    /** Order of this runner: ahead of the application's runners, which may rely on loaded filters. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    private final FilterPreloader preloader;
    private final BloomFilterRegistry registry;

    FilterPreloadRunner(FilterPreloader preloader, BloomFilterRegistry registry) {
        this.preloader = preloader;
        this.registry = registry;
    }

    @Override
    public void run(ApplicationArguments args) {
        preloader.preloadAll();
        for (NamedBloomFilter filter : registry.all()) {
            if (filter.backend() instanceof RedisBloomFilter redis) {
                RedisAccessDeniedException refused = redis.accessDenied();
                if (refused != null) {
                    throw refused;
                }
            }
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
