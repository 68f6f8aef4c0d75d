package io.bloomguard.guard;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.h2.Driver;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How often a {@code @BloomPut} key expression runs for one write: at most once before the call, once after it
 * returns, and once at the commit, each time for a key that can only have changed since (an id the insert assigns,
 * a column the database fills in at the flush). Counted by the getter the expression reads.
 */
class KeyEvaluationsPerWriteTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.orders.expected-size=100")
            .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(
                    new SimpleDriverDataSource(new Driver(), "jdbc:h2:mem:key-evaluations")))
            .withBean(Orders.class);

    /** A key the database fills in at the flush, read from the result: once as the method returns, once at the commit. */
    @Test
    void aResultsKeyKnownOnlyAtTheCommitIsReadOnceAfterTheCallAndOnceAtTheCommit() {
        runner.run(context -> {
            Order order = context.getBean(Orders.class).placeCodedAtCommit("o-1");

            assertThat(order.codeReads.get()).isEqualTo(2);
            assertThat(orders(context).backendMightContain("o-1")).as("put at the commit").isTrue();
        });
    }

    /** The same key read from the argument: once before the call too, where it might already be known. */
    @Test
    void anArgumentsKeyKnownOnlyAtTheCommitIsReadOncePerPhase() {
        runner.run(context -> {
            Order order = new Order();
            context.getBean(Orders.class).saveCodedAtCommit(order, "o-2");

            assertThat(order.codeReads.get()).isEqualTo(3);
            assertThat(orders(context).backendMightContain("o-2")).as("put at the commit").isTrue();
        });
    }

    /**
     * An id the insert assigns to the argument: unknown before the call, read again once the method returns (not
     * reading it then would leave the new row's key out, and the row rejected).
     */
    @Test
    void anIdTheInsertAssignsIsReadBeforeAndOnceAfterTheCall() {
        runner.run(context -> {
            Order order = new Order();
            context.getBean(Orders.class).insert(order, "o-3");

            assertThat(order.codeReads.get()).isEqualTo(2);
            assertThat(orders(context).backendMightContain("o-3")).as("put as the method returned").isTrue();
        });
    }

    /** A key known before the call is read once, then. */
    @Test
    void aKeyKnownBeforeTheCallIsReadOnce() {
        runner.run(context -> {
            Order order = new Order();
            order.code = "o-4";
            context.getBean(Orders.class).insert(order, "o-4");

            assertThat(order.codeReads.get()).isEqualTo(1);
            assertThat(orders(context).backendMightContain("o-4")).isTrue();
        });
    }

    /**
     * A {@code Mono}'s value delivered without its key (a column the write never read back) is read once as it is
     * delivered: nothing reads it again, and the filter stops rejecting.
     */
    @Test
    void aMonosValueIsReadOnceAsItIsDelivered() {
        runner.run(context -> {
            Order order = new Order();
            context.getBean(Orders.class).deliver(order).block();

            assertThat(order.codeReads.get()).isEqualTo(1);
            assertThat(orders(context).trustedToReject()).as("a row without its key").isFalse();
        });
    }

    private static NamedBloomFilter orders(org.springframework.context.ApplicationContext context) {
        return context.getBean(BloomFilterRegistry.class).get("orders");
    }

    static final class Order {

        final AtomicInteger codeReads = new AtomicInteger();
        volatile @Nullable String code;

        public @Nullable String getCode() {
            codeReads.incrementAndGet();
            return code;
        }
    }

    static class Orders {

        @Transactional
        @BloomPut(filter = "orders", key = "#result.code")
        public Order placeCodedAtCommit(String code) {
            Order order = new Order();
            fillInAtCommit(order, code);
            return order;
        }

        @Transactional
        @BloomPut(filter = "orders", key = "#order.code")
        public void saveCodedAtCommit(Order order, String code) {
            fillInAtCommit(order, code);
        }

        @Transactional
        @BloomPut(filter = "orders", key = "#order.code")
        public void insert(Order order, String code) {
            order.code = code;
        }

        @BloomPut(filter = "orders", key = "#result.code")
        public Mono<Order> deliver(Order order) {
            return Mono.fromCallable(() -> order);
        }

        /** As the database fills a column in at the flush, before the commit: registered before the guard's put. */
        private static void fillInAtCommit(Order order, String code) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    order.code = code;
                }
            });
        }
    }
}
