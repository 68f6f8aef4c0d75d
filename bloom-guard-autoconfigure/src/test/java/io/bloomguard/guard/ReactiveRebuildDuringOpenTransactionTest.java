package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.OwnThread;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactive transaction (R2DBC over H2) that stays open across a rebuild of a local filter: the rows its
 * {@code Flux} delivered were keyed before the rebuild began, and the rebuild's read of the key source cannot see
 * them. Once it commits, every one is found through a guarded reactive lookup.
 */
@Timeout(60)
class ReactiveRebuildDuringOpenTransactionTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withUserConfiguration(Store.class)
            .withPropertyValues("bloom-guard.filters.items.expected-size=10000",
                    // Nothing held back: the swap itself must keep the rows (a table of many rows would not be held).
                    "bloom-guard.filters.items.rebuild.hold-below=0");

    @Test
    void rowsDeliveredBeforeARebuildAreFoundOnceTheirReactiveTransactionCommits() {
        runner.run(context -> {
            context.getBean(FilterPreloader.class).preloadAll();
            Items items = context.getBean(Items.class);
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("items");
            List<String> names = IntStream.range(0, 200).mapToObj(i -> "item-" + i).toList();
            // Committed only once the rebuild, run while the transaction is open, is over.
            Mono<Void> rebuiltMeanwhile = Mono.fromFuture(() -> OwnThread.run(filter::rebuild)).then();

            List<Long> ids = items.insertAll(names, rebuiltMeanwhile).collectList().block(Duration.ofSeconds(30));

            assertThat(ids).hasSize(200);
            List<Long> rejected = ids.stream().filter(id -> items.find(id).block(Duration.ofSeconds(10)) == null)
                    .toList();
            assertThat(rejected).as("rows rejected after the commit").isEmpty();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Store {

        @Bean
        ConnectionFactory connectionFactory() {
            return ConnectionFactories.get("r2dbc:h2:mem:///items-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1");
        }

        @Bean
        R2dbcTransactionManager transactionManager(ConnectionFactory connectionFactory) {
            return new R2dbcTransactionManager(connectionFactory);
        }

        @Bean
        DatabaseClient databaseClient(ConnectionFactory connectionFactory) {
            DatabaseClient db = DatabaseClient.create(connectionFactory);
            db.sql("create table item (id bigint auto_increment primary key, name varchar(50))").then().block();
            return db;
        }

        /** What a rebuild reads: the committed rows, through a connection of its own. */
        @Bean
        BloomKeySource itemIds(DatabaseClient db) {
            return BloomKeySource.of("items", () -> db.sql("select id from item").map(row -> row.get(0, Long.class))
                    .all().collectList().block().stream());
        }

        @Bean
        Items items(DatabaseClient db) {
            return new Items(db);
        }
    }

    static class Items {

        private final DatabaseClient db;

        Items(DatabaseClient db) {
            this.db = db;
        }

        /** Inserts the rows, delivering each id as it goes, and commits once {@code before} completes. */
        @Transactional
        @BloomPut(filter = "items", key = "#result")
        public Flux<Long> insertAll(List<String> names, Mono<Void> before) {
            return Flux.fromIterable(names)
                    .concatMap(name -> db.sql("insert into item (name) values (:name)").bind("name", name)
                            .filter(statement -> statement.returnGeneratedValues("id"))
                            .map(row -> row.get("id", Long.class)).one())
                    .concatWith(before.then(Mono.empty()));
        }

        @BloomGuarded(filter = "items")
        public Mono<Long> find(Long id) {
            return db.sql("select id from item where id = :id").bind("id", id).map(row -> row.get(0, Long.class)).one();
        }
    }
}
