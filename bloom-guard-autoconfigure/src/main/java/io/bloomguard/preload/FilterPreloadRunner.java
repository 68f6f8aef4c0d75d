package io.bloomguard.preload;

import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/**
 * Preloads every filter before the application's own runners, and before Spring Boot reports the application
 * ready: readiness (and so a Kubernetes readiness probe) waits for the filters, while liveness does not.
 * Requests served meanwhile pass through the filters that are still loading. A shared filter that its store refuses
 * (no or a wrong password, an ACL that denies a command it needs) stops the startup with its
 * {@linkplain SharedBloomFilter#refusal() refusal}: it is a configuration mistake, which the auto-configuration's
 * failure analyzer explains. (A filter that cannot reach its store does not: it holds readiness instead, see
 * {@link SharedFilterReadiness}.)
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class FilterPreloadRunner implements ApplicationRunner, Ordered {

    /** Order of this runner: ahead of the application's runners, which may rely on loaded filters. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    private final FilterPreloader preloader;
    private final BloomFilterRegistry registry;

    public FilterPreloadRunner(FilterPreloader preloader, BloomFilterRegistry registry) {
        this.preloader = preloader;
        this.registry = registry;
    }

    @Override
    public void run(ApplicationArguments args) {
        preloader.preloadAll();
        for (NamedBloomFilter filter : registry.all()) {
            SharedBloomFilter shared = filter.shared().orElse(null);
            if (shared != null) {
                RuntimeException refused = shared.refusal();
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
