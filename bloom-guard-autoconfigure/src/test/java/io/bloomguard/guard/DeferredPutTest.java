package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @BloomPut} on methods that return a promise of what they write: a {@code Mono} or {@code Flux} from a
 * reactive repository, written only when subscribed to, or a {@code CompletableFuture}. A real reactive database
 * (H2 through R2DBC) with reactive transactions; the id of each row is assigned by the insert. Also the guard of
 * reactive lookups, which runs when they are subscribed to and counts what their answers show.
 */
class DeferredPutTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withUserConfiguration(ReactiveStoreConfiguration.class)
            .withPropertyValues("bloom-guard.filters.people.expected-size=1000",
                    "bloom-guard.filters.strict.expected-size=1000",
                    "bloom-guard.filters.strict.on-backend-failure=throw",
                    "bloom-guard.filters.shadowed.expected-size=1000",
                    "bloom-guard.filters.shadowed.mode=shadow");

    @Test
    void anIdTheInsertAssignsToTheArgumentIsPutBeforeTheCommit() {
        run(app -> {
            Person ann = new Person("ann");
            Mono<Person> insert = app.store().insert(ann);
            assertThat(ann.id).as("nothing written before the Mono is subscribed to").isNull();

            insert.block();

            assertThat(app.seen().seenAtCommit).containsEntry(ann.id, true);
            assertThat(app.find(ann.id)).as("found, not rejected").isNotNull();
        });
    }

    @Test
    void theResultOfAMonoIsItsValue() {
        run(app -> {
            Person bob = app.store().insertNamed("bob").block();

            assertThat(app.seen().seenAtCommit).containsEntry(bob.id, true);
            assertThat(app.find(bob.id)).isNotNull();
        });
    }

    @Test
    void theResultOfAFluxIsEachElement() {
        run(app -> {
            List<Person> people = app.store().insertAll(List.of("cy", "di", "ed")).collectList().block();

            assertThat(people).hasSize(3).allSatisfy(person -> {
                assertThat(app.seen().seenAtCommit).containsEntry(person.id, true);
                assertThat(app.find(person.id)).isNotNull();
            });
        });
    }

    /**
     * Each element's key is a column the database fills in, which the insert does not read back: no element delivers
     * its key, so the rows would be rejected. The filter stops rejecting instead.
     */
    @Test
    void elementsOfAFluxDeliveredWithoutTheirKeysStopTheFilterRejecting() {
        run(app -> {
            List<Person> people = app.store().insertAllCoded(List.of("uma", "vic")).collectList().block();

            assertThat(people).hasSize(2).allSatisfy(person -> assertThat(person.code).as("not read back").isNull());
            assertThat(app.people().trustedToReject()).isFalse();
            for (String name : List.of("uma", "vic")) {
                assertThat(app.store().findByCode(app.store().codeOf(name)).block(Duration.ofSeconds(10)))
                        .as(name).isNotNull();
            }
        });
    }

    /** The same for a {@code Mono}: its value shows no key, yet its row exists. */
    @Test
    void aMonoDeliveredWithoutItsKeyStopsTheFilterRejecting() {
        run(app -> {
            Person wes = app.store().insertCoded("wes").block(Duration.ofSeconds(10));

            assertThat(wes.code).as("not read back").isNull();
            assertThat(app.people().trustedToReject()).isFalse();
            assertThat(app.store().findByCode(app.store().codeOf("wes")).block(Duration.ofSeconds(10))).isNotNull();
        });
    }

    @Test
    void theResultOfACompletableFutureIsItsValueAndIsInBeforeTheFutureCompletes() {
        run(app -> {
            CompletableFuture<Long> id = app.store().insertLater("fay");

            Boolean inWhenComplete = id.thenApply(app.people()::mightContain).get(10, TimeUnit.SECONDS);

            assertThat(inWhenComplete).isTrue();
            assertThat(app.find(id.join())).isNotNull();
        });
    }

    @Test
    void aFailedFutureFailsWithItsOwnExceptionAndPutsNothing() {
        run(app -> {
            CompletableFuture<Long> failed = app.store().insertFailing("gus");

            Throwable seenByCaller = failed.handle((id, ex) -> ex).get(10, TimeUnit.SECONDS);

            assertThat(seenByCaller).as("the method's own exception, not wrapped again")
                    .isExactlyInstanceOf(IllegalStateException.class).hasMessage("insert of gus failed");
            assertThat(app.people().trustedToReject()).as("the write's hold is over").isTrue();
        });
    }

    /** A write in a transaction is keyed before its commit: the filter goes on rejecting other keys meanwhile. */
    @Test
    void aTransactionalWriteDoesNotStopTheFilterRejecting() {
        run(app -> {
            app.store().insertNamed("hal").block();

            assertThat(app.seen().trustedDuringWrite).as("trusted while the insert ran").containsEntry("hal", true);
            assertThat(app.find(987_654L)).as("an absent key after the write").isNull();
            assertThat(app.people().stats().rejected()).as("rejections counted").isGreaterThanOrEqualTo(2);
        });
    }

    /**
     * One thread inserts through a reactive {@code @Transactional @BloomPut} method without pause while absent ids
     * are looked up (fixed seed): only the filter's own false positives get through, at most 1.3 times its error
     * rate, and every id inserted is found.
     */
    @Test
    void absentIdsStayRejectedWhileAReactiveWriteRunsContinuously() {
        run(app -> {
            AtomicBoolean stop = new AtomicBoolean();
            List<Long> written = new java.util.concurrent.CopyOnWriteArrayList<>();
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<?> writing = writer.submit(() -> {
                for (int n = 0; !stop.get(); n++) {
                    written.add(app.store().insertNamed("load-" + n).block(Duration.ofSeconds(10)).id);
                }
                return null;
            });
            long throughBefore = app.people().stats().passed() + app.people().stats().skipped();
            int lookups = 0;
            try {
                await().until(() -> written.size() > 10);
                int writtenBefore = written.size();
                Random random = new Random(42);
                while (lookups < 2000 || written.size() - writtenBefore < 100) {
                    assertThat(app.find(1_000_000_000_000L + random.nextInt(Integer.MAX_VALUE))).isNull();
                    lookups++;
                }
            }
            finally {
                stop.set(true);
                writing.get(30, TimeUnit.SECONDS);
                writer.shutdownNow();
            }
            long through = app.people().stats().passed() + app.people().stats().skipped() - throughBefore;
            assertThat(through).as("absent lookups that reached the database, of %d", lookups)
                    .isLessThanOrEqualTo((long) Math.floor(1.3 * app.people().spec().sizing().errorRate() * lookups));
            for (Long id : written) {
                assertThat(app.find(id)).as("inserted id %d", id).isNotNull();
            }
        });
    }

    @Test
    void aFailedPutUnderThrowRollsTheReactiveTransactionBack() {
        run(app -> {
            assertThatThrownBy(() -> app.store().insertStrictly("ivy").block())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Unsupported Bloom filter key type");

            assertThat(app.store().count("ivy")).as("rolled back").isZero();
        });
    }

    /**
     * A reactive lookup built before the insert and subscribed to after it, as in {@code insert.then(find)}: the
     * repository queries when subscribed to, so the guard has to check then too, not when the Mono was built.
     */
    @Test
    void aLookupBuiltBeforeTheInsertAndRunAfterItFindsTheRow() {
        run(app -> {
            Mono<Person> findFirst = app.store().find(1L);

            Person found = app.store().insertNamed("kim").then(findFirst).block(Duration.ofSeconds(10));

            assertThat(found).as("the first row, inserted before the lookup ran").isNotNull()
                    .extracting(person -> person.name).isEqualTo("kim");
        });
    }

    @Test
    void aKeyAFutureItCannotWatchWouldFillInStopsTheFilterRejecting() {
        run(app -> {
            long absent = 987_654L;
            assertThat(app.find(absent)).isNull();
            int queries = app.seen().queries.get();

            app.store().insertUnwatchable(new Person("jo"));

            assertThat(app.people().trustedToReject()).isFalse();
            assertThat(app.find(absent)).isNull();
            assertThat(app.seen().queries.get()).as("let through to the database").isEqualTo(queries + 1);
        });
    }

    @Test
    void aReactiveLookupThatFindsNothingAfterMightContainIsCountedAsAFalsePositive() {
        run(app -> {
            long absent = 555L;
            app.people().put(absent); // in the filter, not in the database: what a false positive is
            long before = app.people().stats().falsePositives();

            assertThat(app.find(absent)).isNull();
            assertThat(app.people().stats().falsePositives()).as("Mono").isEqualTo(before + 1);

            assertThat(app.store().findAll(absent).collectList().block()).isEmpty();
            assertThat(app.people().stats().falsePositives()).as("Flux").isEqualTo(before + 2);

            app.store().touch(absent).block();
            assertThat(app.people().stats().falsePositives()).as("a Mono<Void> says nothing about the key")
                    .isEqualTo(before + 2);
        });
    }

    @Test
    void aReactiveLookupThatFindsTheRowAfterMightContainIsNoFalsePositive() {
        run(app -> {
            Person kept = app.store().insertNamed("lea").block();
            long before = app.people().stats().falsePositives();

            assertThat(app.find(kept.id)).isNotNull();
            assertThat(app.store().findAll(kept.id).collectList().block()).hasSize(1);

            assertThat(app.people().stats().falsePositives()).isEqualTo(before);
            assertThat(app.people().stats().passed()).isGreaterThanOrEqualTo(2);
        });
    }

    @Test
    void aShadowFilterCountsTheReactiveLookupsItWouldHaveWronglyRejected() {
        run(app -> {
            NamedBloomFilter shadowed = app.store().shadowed();
            Person unkeyed = app.store().insertUnkeyed("max").block(); // written without its key: the filter misses it
            long missing = 777_777L;

            assertThat(app.store().findShadowed(unkeyed.id).block()).as("shadow mode never rejects").isNotNull();
            assertThat(app.store().findAllShadowed(unkeyed.id).collectList().block()).hasSize(1);
            assertThat(app.store().findShadowed(missing).block()).isNull();
            assertThat(app.store().findAllShadowed(missing).collectList().block()).isEmpty();

            assertThat(shadowed.stats().shadowRejections()).isEqualTo(4);
            assertThat(shadowed.stats().shadowFalseNegatives()).as("the two lookups that found the row").isEqualTo(2);
        });
    }

    /**
     * A method that writes when called and returns the saved row in a {@code Mono.just}: the row is committed
     * before anyone subscribes (if anyone ever does), so its key goes in with the call.
     */
    @Test
    void aMonoOfAValueWrittenWhenCalledIsKeyedWithTheCall() {
        run(app -> {
            app.store().insertEagerly("una"); // never subscribed to

            Long id = app.store().idOf("una");
            assertThat(id).isNotNull();
            assertThat(app.people().trustedToReject()).isTrue();
            assertThat(app.find(id)).as("found, not rejected").isNotNull();
        });
    }

    /** A cancelled reactive transaction rolls back: nothing was written, so the filter is still trusted. */
    @Test
    void aCancelledTransactionalInsertRollsBackAndTheFilterGoesOnRejecting() {
        run(app -> {
            Disposable insert = app.store().insertSlowly("ola").subscribe();
            await("the row is written in the transaction").atMost(Duration.ofSeconds(10))
                .until(() -> app.seen().inserted.contains("ola"));

            insert.dispose();

            assertRolledBackAndStillTrusted(app, "ola");
        });
    }

    /**
     * With no transaction the insert is in the database before the cancellation, and its id never reached the
     * filter: the filter must stop rejecting, or that row would be "not found" from now on.
     */
    @Test
    void aCancelledInsertWithNoTransactionStopsTheFilterRejecting() {
        run(app -> {
            Disposable insert = app.store().insertSlowlyWithoutTransaction("pat").subscribe();
            await("the row is written").atMost(Duration.ofSeconds(10))
                .until(() -> app.store().idOf("pat") != null);

            insert.dispose(); // cancels it

            Long id = app.store().idOf("pat");
            assertThat(app.people().trustedToReject()).isFalse();
            assertThat(app.find(id)).as("found, not rejected").isNotNull();
        });
    }

    /** Cancelled after the insert assigned the id to the argument: that key is put, and the filter stays trusted. */
    @Test
    void aCancelledInsertKeyedOnItsArgumentPutsTheIdItWasAssigned() {
        run(app -> {
            Person quin = new Person("quin");
            Disposable insert = app.store().insertSlowlyWithoutTransaction(quin).subscribe();
            await("the id is assigned").atMost(Duration.ofSeconds(10)).until(() -> quin.id != null);

            insert.dispose();

            assertThat(app.people().trustedToReject()).isTrue();
            assertThat(app.find(quin.id)).as("found, not rejected").isNotNull();
        });
    }

    /** A failure the transaction does not roll back for: the row is committed, without its key. */
    @Test
    void aFailedInsertWhoseTransactionCommitsAllTheSameStopsTheFilterRejecting() {
        run(app -> {
            assertThatThrownBy(() -> app.store().insertThenFailToMail("rae").block())
                    .isInstanceOf(IllegalStateException.class).hasMessage("mail server down");

            Long id = app.store().idOf("rae");
            assertThat(id).as("committed").isNotNull();
            assertThat(app.seen().completions).containsEntry("rae", TransactionSynchronization.STATUS_COMMITTED);
            assertThat(app.people().trustedToReject()).isFalse();
            assertThat(app.find(id)).as("found, not rejected").isNotNull();
        });
    }

    /** A failure that rolls the transaction back wrote nothing: the filter goes on rejecting. */
    @Test
    void aFailedInsertThatRollsBackLeavesTheFilterTrusted() {
        run(app -> {
            assertThatThrownBy(() -> app.store().insertThenFail("sam").block()).isInstanceOf(IllegalStateException.class);

            assertRolledBackAndStillTrusted(app, "sam");
        });
    }

    /**
     * Cancelling the future the method returned does not stop the write behind it (the future's own would no longer
     * deliver the key while the insert went on): the row is written and its key put.
     */
    @Test
    void cancellingTheReturnedFutureLetsTheWriteFinishAndPutItsKey() {
        run(app -> {
            CompletableFuture<Long> insert = app.store().insertLaterSlowly("tia");

            assertThat(insert.cancel(true)).isTrue();

            await("the row is written and the write's hold is over").atMost(Duration.ofSeconds(10))
                .until(() -> app.store().idOf("tia") != null && app.people().trustedToReject());
            assertThat(app.people().state()).isEqualTo(FilterState.READY);
            assertThat(app.find(app.store().idOf("tia"))).as("found, not rejected").isNotNull();
        });
    }

    /** The insert of {@code name} ran in a transaction that rolled back, and the filter was left trusted. */
    private static void assertRolledBackAndStillTrusted(Fixture app, String name) {
        await("the transaction ended").atMost(Duration.ofSeconds(10))
            .until(() -> app.seen().completions.containsKey(name));
        assertThat(app.seen().completions).containsEntry(name, TransactionSynchronization.STATUS_ROLLED_BACK);
        assertThat(app.store().count(name)).isZero();
        assertThat(app.people().trustedToReject()).isTrue();
    }

    private void run(ThrowingConsumer<Fixture> test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(FilterPreloader.class).preloadAll();
            Fixture fixture = new Fixture(context.getBean(PersonStore.class), context.getBean(Observations.class),
                    context.getBean(BloomFilterRegistry.class).get("people"));
            assertThat(fixture.find(123_456L)).as("an empty, loaded filter rejects").isNull();
            assertThat(fixture.seen().queries.get()).isZero();
            test.accept(fixture);
        });
    }

    @FunctionalInterface
    interface ThrowingConsumer<T> {
        void accept(T value) throws Exception;
    }

    /** The store, what it saw, and its filter. */
    record Fixture(PersonStore store, Observations seen, NamedBloomFilter people) {

        Person find(Long id) {
            return store.find(id).block(Duration.ofSeconds(10));
        }
    }

    static final class Person {

        volatile Long id; // assigned by the insert, possibly on another thread than the test's
        volatile UUID code; // filled in by the database, never read back by the insert
        final String name;
        final LocalDate created = LocalDate.of(2026, 11, 22);

        Person(String name) {
            this.name = name;
        }

        public Long getId() {
            return id;
        }

        public String getName() {
            return name;
        }

        public UUID getCode() {
            return code;
        }

        public LocalDate getCreated() {
            return created;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class ReactiveStoreConfiguration {

        @Bean
        ConnectionFactory connectionFactory() {
            return ConnectionFactories.get("r2dbc:h2:mem:///people-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1");
        }

        @Bean
        R2dbcTransactionManager transactionManager(ConnectionFactory connectionFactory) {
            return new R2dbcTransactionManager(connectionFactory);
        }

        @Bean
        DatabaseClient databaseClient(ConnectionFactory connectionFactory) {
            DatabaseClient db = DatabaseClient.create(connectionFactory);
            db.sql("create table person (id bigint auto_increment primary key, name varchar(50),"
                    + " code uuid default random_uuid())").then().block();
            return db;
        }

        @Bean
        Observations observations() {
            return new Observations();
        }

        @Bean
        PersonStore personStore(DatabaseClient db, BloomFilterRegistry registry, Observations observations) {
            return new PersonStore(db, registry.get("people"), registry.get("shadowed"), observations);
        }
    }

    /** What the store saw, kept apart from it: the test holds the store's proxy, not the store. */
    static final class Observations {

        final Map<Long, Boolean> seenAtCommit = new ConcurrentHashMap<>();
        final Map<String, Boolean> trustedDuringWrite = new ConcurrentHashMap<>();
        final AtomicInteger queries = new AtomicInteger();
        final Map<String, Integer> completions = new ConcurrentHashMap<>();
        final Set<String> inserted = ConcurrentHashMap.newKeySet();
    }

    /** A reactive repository written by hand over R2DBC, as an application would. */
    static class PersonStore {

        private final DatabaseClient db;
        private final NamedBloomFilter people;
        private final NamedBloomFilter shadowed;
        private final Map<Long, Boolean> seenAtCommit;
        private final Map<String, Boolean> trustedDuringWrite;
        private final AtomicInteger queries;
        private final Map<String, Integer> completions;
        private final Set<String> inserted;

        PersonStore(DatabaseClient db, NamedBloomFilter people, NamedBloomFilter shadowed, Observations observations) {
            this.db = db;
            this.people = people;
            this.shadowed = shadowed;
            this.seenAtCommit = observations.seenAtCommit;
            this.trustedDuringWrite = observations.trustedDuringWrite;
            this.queries = observations.queries;
            this.completions = observations.completions;
            this.inserted = observations.inserted;
        }

        @Transactional
        @BloomPut(filter = "people", key = "#person.id")
        public Mono<Person> insert(Person person) {
            return insertRow(person);
        }

        @Transactional
        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertNamed(String name) {
            return insertRow(new Person(name));
        }

        @Transactional
        @BloomPut(filter = "people", key = "#result.id")
        public Flux<Person> insertAll(List<String> names) {
            return Flux.fromIterable(names).concatMap(name -> insertRow(new Person(name)));
        }

        /** Keyed on a column the database fills in, which {@code insertRow} does not read back. */
        @Transactional
        @BloomPut(filter = "people", key = "#result.code")
        public Flux<Person> insertAllCoded(List<String> names) {
            return Flux.fromIterable(names).concatMap(name -> insertRow(new Person(name)));
        }

        @Transactional
        @BloomPut(filter = "people", key = "#result.code")
        public Mono<Person> insertCoded(String name) {
            return insertRow(new Person(name));
        }

        @BloomGuarded(filter = "people")
        public Mono<Person> findByCode(UUID code) {
            return db.sql("select id, name from person where code = :code").bind("code", code)
                    .map(row -> new Person(row.get("name", String.class))).one();
        }

        public UUID codeOf(String name) {
            return db.sql("select code from person where name = :name").bind("name", name)
                    .map(row -> row.get(0, UUID.class)).one().block();
        }

        @BloomPut(filter = "people", key = "#result")
        public CompletableFuture<Long> insertLater(String name) {
            return insertRow(new Person(name)).map(Person::getId).toFuture();
        }

        @BloomPut(filter = "people", key = "#result")
        public CompletableFuture<Long> insertFailing(String name) {
            CompletableFuture<Long> failing = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS).execute(
                    () -> failing.completeExceptionally(new IllegalStateException("insert of " + name + " failed")));
            return failing;
        }

        @Transactional
        @BloomPut(filter = "strict", key = "#result.created")
        public Mono<Person> insertStrictly(String name) {
            return insertRow(new Person(name));
        }

        /** A plain Future: the id the insert assigns is not there when the method returns. */
        @BloomPut(filter = "people", key = "#person.id")
        public Future<Person> insertUnwatchable(Person person) {
            return CompletableFuture.supplyAsync(() -> insertRow(person).block(),
                    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        }

        @BloomGuarded(filter = "people")
        public Mono<Person> find(Long id) {
            return selectById(id);
        }

        @BloomGuarded(filter = "people")
        public Flux<Person> findAll(Long id) {
            return selectById(id).flux();
        }

        /** Says nothing of whether the key exists: a rejected call and a passed one both complete empty. */
        @BloomGuarded(filter = "people")
        public Mono<Void> touch(Long id) {
            return selectById(id).then();
        }

        @BloomGuarded(filter = "shadowed")
        public Mono<Person> findShadowed(Long id) {
            return selectById(id);
        }

        @BloomGuarded(filter = "shadowed")
        public Flux<Person> findAllShadowed(Long id) {
            return selectById(id).flux();
        }

        /** Writes when called, not when subscribed to, as wrapping a blocking repository in a Mono does. */
        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertEagerly(String name) {
            return Mono.just(insertRow(new Person(name)).block());
        }

        /** Inserts, then takes its time before it answers: long enough to be cancelled after the insert. */
        @Transactional
        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertSlowly(String name) {
            return insertRow(new Person(name)).delayElement(Duration.ofSeconds(2));
        }

        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertSlowlyWithoutTransaction(String name) {
            return insertRow(new Person(name)).delayElement(Duration.ofSeconds(2));
        }

        @BloomPut(filter = "people", key = "#person.id")
        public Mono<Person> insertSlowlyWithoutTransaction(Person person) {
            return insertRow(person).delayElement(Duration.ofSeconds(2));
        }

        @BloomPut(filter = "people", key = "#result")
        public CompletableFuture<Long> insertLaterSlowly(String name) {
            return insertRow(new Person(name)).delayElement(Duration.ofMillis(300)).map(Person::getId).toFuture();
        }

        /** Inserts, then fails with an exception its transaction is told not to roll back for. */
        @Transactional(noRollbackFor = IllegalStateException.class)
        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertThenFailToMail(String name) {
            return insertRow(new Person(name)).then(Mono.error(new IllegalStateException("mail server down")));
        }

        @Transactional
        @BloomPut(filter = "people", key = "#result.id")
        public Mono<Person> insertThenFail(String name) {
            return insertRow(new Person(name)).then(Mono.error(new IllegalStateException("constraint violated, say")));
        }

        public @Nullable Long idOf(String name) {
            return db.sql("select id from person where name = :name").bind("name", name)
                    .map(row -> row.get(0, Long.class)).one().block();
        }

        /** A write with no {@code @BloomPut}: its row is missing from every filter. */
        public Mono<Person> insertUnkeyed(String name) {
            return insertRow(new Person(name));
        }

        public NamedBloomFilter shadowed() {
            return shadowed;
        }

        public long count(String name) {
            return db.sql("select count(*) from person where name = :name").bind("name", name)
                    .map(row -> row.get(0, Long.class)).one().block();
        }

        private Mono<Person> selectById(Long id) {
            return Mono.defer(() -> {
                queries.incrementAndGet();
                return db.sql("select id, name from person where id = :id").bind("id", id)
                        .map(row -> {
                            Person person = new Person(row.get("name", String.class));
                            person.id = row.get("id", Long.class);
                            return person;
                        })
                        .one();
            });
        }

        /**
         * Inserts the row, sets the id the database assigned, and notes, as its transaction commits, whether the
         * filter holds the id then.
         */
        private Mono<Person> insertRow(Person person) {
            NamedBloomFilter filter = people;
            return Mono.fromRunnable(() -> trustedDuringWrite.put(person.name, filter.trustedToReject()))
                    .then(db.sql("insert into person (name) values (:name)").bind("name", person.name)
                            .filter(statement -> statement.returnGeneratedValues("id"))
                            .map(row -> row.get("id", Long.class)).one())
                    .map(id -> {
                        person.id = id;
                        inserted.add(person.name);
                        return person;
                    })
                    .flatMap(saved -> TransactionSynchronizationManager.forCurrentTransaction()
                            .doOnNext(transaction -> transaction.registerSynchronization(new TransactionSynchronization() {
                                @Override
                                public Mono<Void> beforeCommit(boolean readOnly) {
                                    return Mono.fromRunnable(() -> seenAtCommit.put(saved.id, filter.backendMightContain(saved.id)));
                                }

                                @Override
                                public Mono<Void> afterCompletion(int status) {
                                    return Mono.fromRunnable(() -> completions.put(saved.name, status));
                                }
                            }))
                            .onErrorResume(noTransaction -> Mono.empty())
                            .thenReturn(saved));
        }

    }
}
