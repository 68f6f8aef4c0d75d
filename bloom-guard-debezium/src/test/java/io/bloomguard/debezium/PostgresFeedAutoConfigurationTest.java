package io.bloomguard.debezium;

import io.bloomguard.feed.ChangeFeedFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresFeedAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PostgresFeedAutoConfiguration.class));

    @Test
    void addingTheModuleDeclaresThePostgresFeedFactory() {
        this.runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://db/shop").run((context) -> {
            assertThat(context).hasSingleBean(ChangeFeedFactory.class);
            assertThat(context.getBean(ChangeFeedFactory.class).type()).isEqualTo("postgres");
        });
    }

    @Test
    void anApplicationsOwnFactoryWins() {
        PostgresChangeFeedFactory own = new PostgresChangeFeedFactory("jdbc:postgresql://other/db", null, null);
        this.runner.withBean(PostgresChangeFeedFactory.class, () -> own)
            .run((context) -> assertThat(context.getBean(PostgresChangeFeedFactory.class)).isSameAs(own));
    }
}
