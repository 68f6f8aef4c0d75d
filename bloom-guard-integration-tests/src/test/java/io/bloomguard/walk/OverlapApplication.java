package io.bloomguard.walk;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.BloomKeySource;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.data.r2dbc.config.AbstractR2dbcConfiguration;
import org.springframework.data.r2dbc.repository.config.EnableR2dbcRepositories;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.annotation.Transactional;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The application the overlap walk drives, as a user writes one: a JPA repository whose {@code save} puts and whose
 * {@code findById} / {@code findAllById} are guarded, a reactive (R2DBC) repository of the same table whose
 * {@code save} puts, a {@code @BloomRemove} delete (counting filters), and the filter
 * {@code overlap} filled from the table by a key source the walk can make fail, come back short, or pause after it
 * read (or none, for a filter filled by puts alone).
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
        JdbcTemplateAutoConfiguration.class, HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
        DataRedisAutoConfiguration.class, BloomGuardAutoConfiguration.class })
@EnableJpaRepositories(basePackageClasses = OverlapRows.class,
        includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = OverlapRows.class))
@EntityScan(basePackageClasses = OverlapRow.class)
class OverlapApplication {

    /** What the key source returns when read: the whole table, a failure, or a tenth of it. */
    enum SourceMode { WHOLE, FAILING, SHORT }

    /** Shared by the instances in the JVM, as their database is. */
    static final AtomicReference<SourceMode> SOURCE = new AtomicReference<>(SourceMode.WHOLE);

    /** Reads of the key source that returned their keys, on any instance. */
    static final AtomicLong READS = new AtomicLong();

    /**
     * When set, the next read on its instance ({@code overlap.instance}) takes it: it reads the table, then waits for
     * it before handing the keys over.
     */
    static final AtomicReference<@Nullable Pause> PAUSE_NEXT_READ = new AtomicReference<>();

    /** A read paused after it read the table: {@link #reading} says it is there, {@link #resume} lets it go on. */
    record Pause(String instance, boolean failAfter, CountDownLatch reading, CountDownLatch resume) {

        /** @param failAfter whether the read then fails (its rebuild ends without swapping anything in) */
        static Pause on(String instance, boolean failAfter) {
            return new Pause(instance, failAfter, new CountDownLatch(1), new CountDownLatch(1));
        }

        /** Takes the pause for a read on {@code instance}, if it is for it. */
        static @Nullable Pause takeFor(String instance) {
            Pause pause = PAUSE_NEXT_READ.get();
            return (pause != null && pause.instance().equals(instance) && PAUSE_NEXT_READ.compareAndSet(pause, null))
                    ? pause : null;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "bloom-guard.filters.overlap.puts-only", havingValue = "false", matchIfMissing = true)
    static class KeySource {

        @Bean
        BloomKeySource overlapKeys(JdbcTemplate jdbc, @Value("${overlap.instance}") String instance) {
            return BloomKeySource.of("overlap", () -> {
                SourceMode mode = SOURCE.get();
                if (mode == SourceMode.FAILING) {
                    throw new IllegalStateException("the key source's database is down");
                }
                List<Long> ids = jdbc.queryForList("SELECT id FROM overlap_rows", Long.class);
                Pause pause = Pause.takeFor(instance);
                if (pause != null) {
                    pause.reading().countDown();
                    awaitResume(pause);
                    if (pause.failAfter()) {
                        throw new IllegalStateException("the key source's database went down while it was read");
                    }
                }
                READS.incrementAndGet();
                return (mode == SourceMode.SHORT) ? ids.stream().limit(ids.size() / 10) : ids.stream();
            });
        }

        private static void awaitResume(Pause pause) {
            try {
                if (!pause.resume().await(120, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the paused read was never resumed");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }

    /**
     * The same table through R2DBC, for a writer that saves with a reactive repository's {@code saveAll}. Neither its
     * connection factory nor its transaction manager is a bean: Spring Boot's data source backs off for a
     * {@code ConnectionFactory} bean, and its JPA transaction manager for any {@code TransactionManager} bean. The walk
     * makes an {@link R2dbcTransactionManager} over the connection factory the repository's {@code DatabaseClient}
     * uses.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableR2dbcRepositories(basePackageClasses = ReactiveOverlapRows.class,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = ReactiveOverlapRows.class))
    static class ReactiveStore extends AbstractR2dbcConfiguration {

        private final ConnectionFactory connectionFactory;

        ReactiveStore(@Value("${overlap.r2dbc-url}") String url) {
            // the user the walk's JDBC connections take, as H2 requires the same one
            this.connectionFactory = ConnectionFactories.get(ConnectionFactoryOptions.parse(url).mutate()
                    .option(ConnectionFactoryOptions.USER, "sa").option(ConnectionFactoryOptions.PASSWORD, "").build());
        }

        @Override
        public ConnectionFactory connectionFactory() {
            return connectionFactory;
        }
    }

    @Bean
    UnkeyedWrites unkeyedWrites(JdbcTemplate jdbc) {
        return new UnkeyedWrites(jdbc);
    }

    /**
     * Inserts rows whose keys do not reach the filter, as careless mappings do: one returned with its key {@code null}
     * (known only as the transaction commits), one whose key is of a type no filter takes (known at once, inside the
     * transaction). The filter must be told it misses a key, and hold it until the row is committed.
     */
    static class UnkeyedWrites {

        private final JdbcTemplate jdbc;

        UnkeyedWrites(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @BloomPut(filter = "overlap", key = "#result.key")
        public Inserted insertWithNullKey(long id) {
            jdbc.update("INSERT INTO overlap_rows (id) VALUES (?)", id);
            return new Inserted(null);
        }

        @Transactional
        @BloomPut(filter = "overlap", key = "#result.key")
        public Inserted insertWithUnusableKey(long id) {
            jdbc.update("INSERT INTO overlap_rows (id) VALUES (?)", id);
            return new Inserted((double) id);
        }
    }

    /** What {@link UnkeyedWrites} returns. */
    record Inserted(@Nullable Object key) {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "bloom-guard.filters.overlap.type", havingValue = "counting")
    static class Deletes {

        @Bean
        Deletions deletions(JdbcTemplate jdbc) {
            return new Deletions(jdbc);
        }
    }

    /** Deletes a row and says how many it deleted, which is what lets the guard remove its key. */
    static class Deletions {

        private final JdbcTemplate jdbc;

        Deletions(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @BloomRemove(filter = "overlap", key = "#id")
        public int delete(long id) {
            return jdbc.update("DELETE FROM overlap_rows WHERE id = ?", id);
        }
    }
}
