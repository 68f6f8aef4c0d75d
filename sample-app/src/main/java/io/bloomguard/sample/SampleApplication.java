package io.bloomguard.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small REST service with bloom-guard in front of two Spring Data repositories: users (keyed by id, loaded
 * with {@code preload.sql}) and products (keyed by tenant and SKU, loaded from a {@code BloomKeySource}).
 *
 * <p>Run it from the repository root: {@code ./mvnw -q -pl sample-app -am -DskipTests package spring-boot:run}
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
