package io.bloomguard.actuate;

import io.bloomguard.preload.BloomKeySource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import java.util.stream.LongStream;

/**
 * A web application with the actuator and two filters: {@code users} in Redis, {@code skus} local; each loads the
 * keys 1 to 500.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ActuatedApplication {

    static final long KEYS = 500;

    @Bean
    BloomKeySource userIds() {
        return BloomKeySource.of("users", () -> LongStream.rangeClosed(1, KEYS).boxed());
    }

    @Bean
    BloomKeySource skuIds() {
        return BloomKeySource.of("skus", () -> LongStream.rangeClosed(1, KEYS).boxed());
    }

    /** Properties of the application on {@code redisPort}. */
    static String[] properties(int redisPort, String keyPrefix) {
        return new String[] { "spring.main.banner-mode=off", "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redisPort, "bloom-guard.redis.key-prefix=" + keyPrefix,
                "bloom-guard.filters.users.backend=redis", "bloom-guard.filters.users.expected-size=10000",
                "bloom-guard.filters.skus.expected-size=10000",
                "management.endpoints.web.exposure.include=bloomfilters,health",
                "management.endpoint.health.show-details=always" };
    }
}
