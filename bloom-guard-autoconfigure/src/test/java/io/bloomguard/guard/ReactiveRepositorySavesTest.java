package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.reactivex.rxjava3.core.Single;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.data.annotation.Id;
import org.springframework.data.r2dbc.config.AbstractR2dbcConfiguration;
import org.springframework.data.r2dbc.repository.config.EnableR2dbcRepositories;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.data.repository.reactive.ReactiveCrudRepository;
import org.springframework.data.repository.reactive.RxJava3CrudRepository;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.connection.init.ConnectionFactoryInitializer;
import org.springframework.r2dbc.connection.init.ResourceDatabasePopulator;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactive Spring Data repository (R2DBC over H2) whose {@code save} has a {@code @BloomPut}: its inherited
 * {@code saveAll}, which writes through {@code save} past the proxy, takes that put, and keys each saved record as it
 * is delivered, inside the transaction. A repository whose inherited {@code saveAll} cannot be keyed does not start.
 */
class ReactiveRepositorySavesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.members.expected-size=10000",
                    "bloom-guard.filters.members.backend=local");

    @Test
    void recordsSavedTogetherAsAnIterableOrAFluxAreEachFoundAndTheFilterGoesOnRejecting() {
        runner.withUserConfiguration(MembersStore.class).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(FilterPreloader.class).preloadAll();
            Members members = context.getBean(Members.class);
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("members");

            List<Member> fromIterable = members.saveAll(named("iterable", 100)).collectList().block(Duration.ofSeconds(30));
            List<Member> fromFlux = members.saveAll(Flux.fromIterable(named("flux", 100))).collectList()
                    .block(Duration.ofSeconds(30));

            assertThat(filter.trustedToReject()).as("no key lost: the filter still rejects").isTrue();
            for (Member member : concat(fromIterable, fromFlux)) {
                assertThat(members.findById(member.id).block(Duration.ofSeconds(10))).as("member %s", member.name)
                        .isNotNull();
            }
            assertThat(members.findById(987_654_321L).block(Duration.ofSeconds(10))).as("an absent id").isNull();
            assertThat(filter.stats().rejected()).isPositive();
        });
    }

    @Test
    void eachRecordSavedTogetherInATransactionIsKeyedBeforeTheCommit() {
        runner.withUserConfiguration(MembersStore.class).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(FilterPreloader.class).preloadAll();
            Members members = context.getBean(Members.class);
            NamedBloomFilter filter = context.getBean(BloomFilterRegistry.class).get("members");
            TransactionalOperator transaction = TransactionalOperator.create(
                    context.getBean(R2dbcTransactionManager.class));
            Map<Long, Boolean> keyedInTransaction = new ConcurrentHashMap<>();

            List<Member> saved = members.saveAll(Flux.fromIterable(named("transaction", 20)))
                    .doOnNext(member -> keyedInTransaction.put(member.id, filter.mightContain(member.id)))
                    .as(transaction::transactional).collectList().block(Duration.ofSeconds(30));

            assertThat(saved).hasSize(20);
            assertThat(keyedInTransaction).hasSize(20).containsOnlyKeys(saved.stream().map(m -> m.id).toList())
                    .allSatisfy((id, keyed) -> assertThat(keyed).as("id %d keyed before the commit", id).isTrue());
            assertThat(filter.trustedToReject()).isTrue();
        });
    }

    @Test
    void aRepositoryWhoseInheritedSaveAllCannotBeKeyedDoesNotStart() {
        runner.withUserConfiguration(RxMembersStore.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = rootCause(context.getStartupFailure());
            assertThat(failure).isInstanceOf(InvalidBloomAnnotationException.class).hasMessageContaining("on RxMembers.saveAll: the repository's save has a @BloomPut for filter"
                            + " 'members', and saveAll, which it inherits from Spring Data's RxJava3CrudRepository,"
                            + " writes records without it")
                    .hasMessageContaining("whose values bloom-guard cannot watch");
            assertThat(((InvalidBloomAnnotationException) failure).action()).startsWith("Declare saveAll in RxMembers with a @BloomPut of its own");
        });
    }

    private static List<Member> named(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> new Member(null, prefix + "-" + i)).toList();
    }

    private static List<Member> concat(List<Member> first, List<Member> second) {
        return Flux.concat(Flux.fromIterable(first), Flux.fromIterable(second)).collectList().block();
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Table("MEMBERS") // H2 keeps unquoted names in upper case
    public static class Member {

        @Id
        public final Long id;
        public final String name;

        public Member(Long id, String name) {
            this.id = id;
            this.name = name;
        }

        public Member withId(Long id) {
            return new Member(id, name);
        }
    }

    public interface Members extends ReactiveCrudRepository<Member, Long> {

        @Override
        @BloomGuarded(filter = "members")
        Mono<Member> findById(Long id);

        @Override
        @BloomPut(filter = "members", key = "#result.id")
        <S extends Member> Mono<S> save(S entity);
    }

    /** Its {@code saveAll} returns a {@code Flowable}, which bloom-guard cannot watch deliver. */
    public interface RxMembers extends RxJava3CrudRepository<Member, Long> {

        @Override
        @BloomPut(filter = "members", key = "#entity.name")
        <S extends Member> Single<S> save(S entity);
    }

    abstract static class R2dbcStore extends AbstractR2dbcConfiguration {

        @Bean
        @Override
        public ConnectionFactory connectionFactory() {
            return ConnectionFactories.get("r2dbc:h2:mem:///members-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1");
        }

        @Bean
        R2dbcTransactionManager transactionManager(ConnectionFactory connectionFactory) {
            return new R2dbcTransactionManager(connectionFactory);
        }

        @Bean
        ConnectionFactoryInitializer schema(ConnectionFactory connectionFactory) {
            ConnectionFactoryInitializer initializer = new ConnectionFactoryInitializer();
            initializer.setConnectionFactory(connectionFactory);
            initializer.setDatabasePopulator(new ResourceDatabasePopulator(new ByteArrayResource(
                    "create table members (id bigint auto_increment primary key, name varchar(50))"
                            .getBytes(StandardCharsets.UTF_8))));
            return initializer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableR2dbcRepositories(considerNestedRepositories = true, basePackageClasses = ReactiveRepositorySavesTest.class,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Members.class))
    static class MembersStore extends R2dbcStore {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableR2dbcRepositories(considerNestedRepositories = true, basePackageClasses = ReactiveRepositorySavesTest.class,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = RxMembers.class))
    static class RxMembersStore extends R2dbcStore {
    }
}
