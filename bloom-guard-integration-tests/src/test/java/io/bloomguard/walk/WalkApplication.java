package io.bloomguard.walk;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.BloomKeySource;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The application the lifecycle walk drives, as a user writes one: a table of rows, a {@code @BloomPut} create, a
 * {@code @BloomRemove} delete that returns its count (counting filters only), and the filter {@code walk} filled from
 * the table by a key source that a test can make fail or come back short.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
        TransactionAutoConfiguration.class, DataRedisAutoConfiguration.class, BloomGuardAutoConfiguration.class })
class WalkApplication {

    /** What the key source does when read: the whole table, a failure, or a tenth of it. */
    enum SourceMode { WHOLE, FAILING, SHORT }

    /** Shared by the instances in the JVM, as their database is. */
    static final AtomicReference<SourceMode> SOURCE = new AtomicReference<>(SourceMode.WHOLE);

    @Bean
    Rows rows(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS walk_rows (id BIGINT PRIMARY KEY)");
        return new Rows(jdbc);
    }

    @Bean
    BloomKeySource walkKeys(JdbcTemplate jdbc) {
        return BloomKeySource.of("walk", () -> {
            List<Long> ids = jdbc.queryForList("SELECT id FROM walk_rows", Long.class);
            return switch (SOURCE.get()) {
                case WHOLE -> ids.stream();
                case SHORT -> ids.stream().limit(ids.size() / 10);
                case FAILING -> throw new IllegalStateException("the key source's database is down");
            };
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "bloom-guard.filters.walk.type", havingValue = "counting")
    static class Deletes {

        @Bean
        Deletions deletions(JdbcTemplate jdbc) {
            return new Deletions(jdbc);
        }

        @Bean
        Savepoints savepoints(Deletions deletions, PlatformTransactionManager transactions) {
            return new Savepoints(deletions, transactions);
        }
    }

    /** Creates rows, each put into the filter before its transaction commits. */
    static class Rows {

        private final JdbcTemplate jdbc;

        Rows(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @BloomPut(filter = "walk", key = "#id")
        public void create(long id) {
            jdbc.update("INSERT INTO walk_rows (id) VALUES (?)", id);
        }

        /** Inserts, then fails: the transaction rolls back, and its key stays in as a false positive. */
        @Transactional
        @BloomPut(filter = "walk", key = "#id")
        public void createAndFail(long id) {
            jdbc.update("INSERT INTO walk_rows (id) VALUES (?)", id);
            throw new IllegalStateException("the create fails after its insert");
        }

        public List<Long> all() {
            return jdbc.queryForList("SELECT id FROM walk_rows", Long.class);
        }
    }

    /** Deletes rows and says how many it deleted, which is what lets the guard remove a key. */
    static class Deletions {

        private final JdbcTemplate jdbc;

        Deletions(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @BloomRemove(filter = "walk", key = "#id")
        public int delete(long id) {
            return jdbc.update("DELETE FROM walk_rows WHERE id = ?", id);
        }
    }

    /** A delete inside a savepoint that is rolled back, in a transaction that then commits: the row stays. */
    static class Savepoints {

        private final Deletions deletions;
        private final TransactionTemplate outer;
        private final TransactionTemplate nested;

        Savepoints(Deletions deletions, PlatformTransactionManager transactions) {
            this.deletions = deletions;
            this.outer = new TransactionTemplate(transactions);
            this.nested = new TransactionTemplate(transactions);
            this.nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        }

        public void deleteAndRollBackToSavepoint(long id) {
            outer.executeWithoutResult(status -> nested.executeWithoutResult(savepoint -> {
                deletions.delete(id);
                savepoint.setRollbackOnly();
            }));
        }
    }
}
