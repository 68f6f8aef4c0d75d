package io.bloomguard.debezium;

import io.bloomguard.feed.ChangeFeedFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Declares the {@code postgres} change feed's {@link PostgresChangeFeedFactory}, with the application's
 * {@code spring.datasource.*} as the database of filters that name none: adding {@code bloom-guard-debezium} is all a
 * filter needs for {@code feed.type: postgres}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(beforeName = "io.bloomguard.autoconfigure.BloomGuardAutoConfiguration")
public final class PostgresFeedAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostgresChangeFeedFactory postgresChangeFeedFactory(Environment environment) {
        return new PostgresChangeFeedFactory(environment.getProperty("spring.datasource.url"),
                environment.getProperty("spring.datasource.username"),
                environment.getProperty("spring.datasource.password"));
    }
}
