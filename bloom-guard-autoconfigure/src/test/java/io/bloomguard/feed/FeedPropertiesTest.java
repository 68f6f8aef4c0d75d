package io.bloomguard.feed;

import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.autoconfigure.InvalidBloomGuardPropertyException;
import io.bloomguard.registry.BloomFilterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.util.UUID;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code feed.*} as a user writes it: what starts a feed, and what stops the startup with what to fix. */
class FeedPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
            .withBean(DataSource.class, () -> new DriverManagerDataSource(
                    "jdbc:h2:mem:feed-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"))
            .withPropertyValues("bloom-guard.filters.users.expected-size=1000");

    @Test
    void aFilterWithAJdbcFeedFollowsIt() {
        runner.withPropertyValues("bloom-guard.filters.users.feed.type=jdbc",
                "bloom-guard.filters.users.feed.jdbc.query=select id, updated_at from users where updated_at > :since")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(FilterFeeds.class).feeds()).hasSize(1);
                    assertThat(context.getBean(BloomFilterRegistry.class).get("users").feed()).get()
                            .satisfies(feed -> assertThat(feed.description()).startsWith("jdbc polling every 1s"));
                });
    }

    @Test
    void aFilterWithoutAFeedFollowsNone() {
        runner.run(context -> {
            assertThat(context.getBean(FilterFeeds.class).feeds()).isEmpty();
            assertThat(context.getBean(BloomFilterRegistry.class).get("users").feed()).isEmpty();
        });
    }

    @Test
    void aTypeNoFactoryServesIsRefusedWithTheTypesThereAre() {
        runner.withPropertyValues("bloom-guard.filters.users.feed.type=postgres",
                "bloom-guard.filters.users.feed.postgres.table=public.users").run(context -> assertThat(context)
                        .getFailure().rootCause().isInstanceOf(InvalidBloomGuardPropertyException.class)
                        .hasMessageContaining("bloom-guard.filters.users.feed.type").hasMessageContaining("jdbc")
                        .hasMessageContaining("bloom-guard-debezium"));
    }

    @Test
    void aQuerySetWithoutATypeIsRefusedRatherThanIgnored() {
        runner.withPropertyValues(
                "bloom-guard.filters.users.feed.jdbc.query=select id, updated_at from users where updated_at > :since")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("bloom-guard.filters.users.feed.type")
                        .hasMessageContaining("feed.jdbc.query is set"));
    }

    @Test
    void aQueryWithoutSinceIsRefusedNamingTheProperty() {
        runner.withPropertyValues("bloom-guard.filters.users.feed.type=jdbc",
                "bloom-guard.filters.users.feed.jdbc.query=select id, updated_at from users").run(context ->
                        assertThat(context).getFailure().rootCause()
                                .hasMessageContaining("bloom-guard.filters.users.feed.jdbc.query")
                                .hasMessageContaining(":since"));
    }

    @Test
    void aMaxLagThatIsNotPositiveIsRefused() {
        runner.withPropertyValues("bloom-guard.filters.users.feed.type=jdbc", "bloom-guard.filters.users.feed.max-lag=0s",
                "bloom-guard.filters.users.feed.jdbc.query=select id, updated_at from users where updated_at > :since")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("bloom-guard.filters.users.feed.max-lag"));
    }
}
