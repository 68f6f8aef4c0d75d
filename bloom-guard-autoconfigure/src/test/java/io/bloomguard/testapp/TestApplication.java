package io.bloomguard.testapp;

import io.bloomguard.preload.BloomKeySource;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

import java.util.stream.LongStream;
import java.util.stream.Stream;

/** A Spring Boot application over H2 with a cache, used as a user's application would be. */
@SpringBootApplication
@EnableCaching
public class TestApplication {

    @Bean
    BloomKeySource codeKeys(CustomerRepository customers) {
        return BloomKeySource.of("codes", customers::streamCodes);
    }

    @Bean
    BloomKeySource oddCustomerIds() {
        return BloomKeySource.of("shadowed", () -> LongStream.rangeClosed(1, 1000).filter(id -> id % 2 == 1).boxed());
    }

    @Bean
    BloomKeySource tinyIds() {
        return BloomKeySource.of("tiny", () -> LongStream.rangeClosed(1, 1000).boxed());
    }

    /** Starts empty and is filled by puts alone (so that, shared in Redis, it is loaded at all). */
    @Bean
    BloomKeySource retriedIds() {
        return BloomKeySource.of("retried", Stream::empty);
    }

    @Bean
    BloomKeySource ticketCodes() {
        return BloomKeySource.of("tickets", Stream::empty);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RetryOnceAdvisor retryOnceAdvisor() {
        return new RetryOnceAdvisor();
    }

    @Bean
    CountingCacheManager cacheManager() {
        return new CountingCacheManager();
    }
}
