package io.bloomguard.autoconfigure;

import io.bloomguard.preload.FilterPreloader;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/**
 * Preloads every filter before the application's own runners, and before Spring Boot reports the application
 * ready: readiness (and so a Kubernetes readiness probe) waits for the filters, while liveness does not.
 * Requests served meanwhile pass through the filters that are still loading.
 */
final class FilterPreloadRunner implements ApplicationRunner, Ordered {

    /** Order of this runner: ahead of the application's runners, which may rely on loaded filters. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    private final FilterPreloader preloader;

    FilterPreloadRunner(FilterPreloader preloader) {
        this.preloader = preloader;
    }

    @Override
    public void run(ApplicationArguments args) {
        preloader.preloadAll();
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
