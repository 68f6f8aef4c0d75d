package io.bloomguard.sample;

import io.bloomguard.preload.BloomKeySource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Fills the {@code products} filter from code, where a key is built from two columns. (The {@code users}
 * filter shows the zero-code way: {@code preload.sql} in application.yml.)
 */
@Configuration(proxyBeanMethods = false)
class ProductKeySourceConfiguration {

    @Bean
    BloomKeySource productKeys(ProductRepository products) {
        return BloomKeySource.of("products", products::streamAllKeys);
    }
}
