package io.bloomguard.benchmarks.guard;

import io.bloomguard.preload.BloomKeySource;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;

import java.util.stream.IntStream;
import java.util.stream.LongStream;

/**
 * The application {@link GuardCallBenchmark} starts in its setup: an in-memory H2 database, {@link ItemRepository}
 * and two local filters of {@link #KEYS} keys each, filled from code at startup: {@code items} with the ids
 * {@code 0 .. KEYS-1}, {@code skus} with {@link #skuKey} of the same numbers.
 */
@SpringBootApplication
public class GuardedItemsApplication {

    /** Keys in each filter, which is sized for exactly as many at ε = 0.01. */
    static final int KEYS = 1_000_000;

    private static final String[] TENANTS = {"acme", "globex", "initech", "umbrella"};

    static String tenant(long i) {
        return TENANTS[(int) (i & 3)];
    }

    static String sku(long i) {
        return "SKU-" + i;
    }

    /** The composite key the {@code skus} filter holds: what {@code #tenant + ':' + #sku} yields. */
    static String skuKey(long i) {
        return tenant(i) + ":" + sku(i);
    }

    @Bean
    BloomKeySource itemIds() {
        return BloomKeySource.of("items", () -> LongStream.range(0, KEYS).boxed());
    }

    @Bean
    BloomKeySource skuKeys() {
        return BloomKeySource.of("skus", () -> IntStream.range(0, KEYS).mapToObj(GuardedItemsApplication::skuKey));
    }

    static ConfigurableApplicationContext start() {
        return builder("guard-call-benchmark").run();
    }

    /**
     * The same application, with its own database, {@code observations} as its {@code ObservationRegistry} bean, and
     * {@code bloom-guard.observations.checks} set to {@code checks} ({@code null}: left unset, off by default).
     */
    static ConfigurableApplicationContext start(ObservationRegistry observations, @Nullable String checks) {
        SpringApplicationBuilder builder = builder("guard-call-benchmark-observed")
                .initializers(context -> ((GenericApplicationContext) context)
                        .registerBean("observationRegistry", ObservationRegistry.class, () -> observations));
        return ((checks != null) ? builder.properties("bloom-guard.observations.checks=" + checks) : builder).run();
    }

    private static SpringApplicationBuilder builder(String database) {
        return new SpringApplicationBuilder(GuardedItemsApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .properties("logging.level.root=warn",
                        "spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1",
                        "bloom-guard.filters.items.expected-size=" + KEYS,
                        "bloom-guard.filters.items.error-rate=0.01",
                        "bloom-guard.filters.skus.expected-size=" + KEYS,
                        "bloom-guard.filters.skus.error-rate=0.01");
    }
}
