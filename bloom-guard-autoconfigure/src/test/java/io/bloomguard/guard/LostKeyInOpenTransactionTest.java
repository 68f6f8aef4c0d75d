package io.bloomguard.guard;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.stream.LongStream;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write whose key cannot reach the filter marks it at once, but its row is committed only when its transaction
 * ends: a recovery rebuild that read the table before then would make the filter ready without the row. The filter
 * stays not ready until a rebuild begun after the end has read it. Run by a real SpringApplication on H2, whose
 * readers do not see rows not yet committed.
 */
@Timeout(120)
class LostKeyInOpenTransactionTest {

    @Test
    void aFilterThatLostAKeyInAnOpenTransactionIsNotReadyUntilARebuildReadTheCommittedRows() {
        try (ConfigurableApplicationContext context = run()) {
            NamedBloomFilter rows = context.getBean(BloomFilterRegistry.class).get("rows");
            assertThat(rows.state()).isEqualTo(FilterState.READY);
            RowWriter writer = context.getBean(RowWriter.class);

            transaction(context).executeWithoutResult(status -> {
                writer.insert(1_001, 1_200);
                assertThat(rows.state()).as("marked at once").isEqualTo(FilterState.FAILED);
                // Its recovery would rebuild after 1 s, reading a table without the 200 rows.
                Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                        .until(() -> rows.state() == FilterState.FAILED && !rows.trustedToReject());
            });

            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rows.state() == FilterState.READY);
            assertThat(LongStream.rangeClosed(1_001, 1_200).filter(key -> !rows.mightContain(key)).count())
                    .as("committed rows rejected").isZero();
        }
    }

    /** Nothing was lost, but the filter was marked: it recovers, and is not held for good. */
    @Test
    void aFilterThatLostAKeyInATransactionThatRolledBackRecovers() {
        try (ConfigurableApplicationContext context = run()) {
            NamedBloomFilter rows = context.getBean(BloomFilterRegistry.class).get("rows");
            RowWriter writer = context.getBean(RowWriter.class);

            transaction(context).executeWithoutResult(status -> {
                writer.insert(2_001, 2_010);
                status.setRollbackOnly();
            });

            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rows.state() == FilterState.READY
                    && rows.trustedToReject());
            assertThat(LongStream.rangeClosed(1, 100).filter(key -> !rows.mightContain(key)).count()).isZero();
        }
    }

    private static TransactionTemplate transaction(ConfigurableApplicationContext context) {
        return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    }

    private static ConfigurableApplicationContext run() {
        SpringApplication application = new SpringApplication(RowsApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run("--spring.main.banner-mode=off", "--bloom-guard.filters.rows.expected-size=10000",
                "--bloom-guard.filters.rows.preload.sql=SELECT id FROM lost_key_rows");
    }

    /** What a write returns: its key cannot be read from it. */
    public record Inserted(long from, long to) {

        public long id() {
            throw new IllegalStateException("the id is assigned later");
        }
    }

    public static class RowWriter {

        private final JdbcTemplate jdbc;

        RowWriter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @BloomPut(filter = "rows", key = "#result.id()")
        public Inserted insert(long from, long to) {
            jdbc.update("INSERT INTO lost_key_rows SELECT X FROM SYSTEM_RANGE(?, ?)", from, to);
            return new Inserted(from, to);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ AopAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class, BloomGuardAutoConfiguration.class })
    static class RowsApplication {

        @Bean
        DataSource dataSource() {
            DataSource dataSource = new DriverManagerDataSource("jdbc:h2:mem:lost-key-" + System.nanoTime()
                    + ";DB_CLOSE_DELAY=-1");
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE lost_key_rows (id BIGINT PRIMARY KEY)");
            jdbc.execute("INSERT INTO lost_key_rows SELECT X FROM SYSTEM_RANGE(1, 100)");
            return dataSource;
        }

        @Bean
        RowWriter rowWriter(JdbcTemplate jdbc) {
            return new RowWriter(jdbc);
        }
    }
}
