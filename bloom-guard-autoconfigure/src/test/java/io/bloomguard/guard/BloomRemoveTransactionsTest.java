package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.RemovableCustomerRepository;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bloomguard.guard.BloomRemoveTest.TENANT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @BloomRemove} and the transaction around the delete, on the H2 test application with its JPA transaction
 * manager: two transactions deleting one row remove its key once.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class BloomRemoveTransactionsTest {

    @Autowired
    RemovableCustomerRepository customers;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    @Qualifier("removable")
    NamedBloomFilter removable;

    @Autowired
    PlatformTransactionManager transactionManager;

    /**
     * Two transactions delete one customer at once: the second waits for the first's row lock, and once the first has
     * committed, finds nothing to delete. The key is removed once. (The customer was saved twice, each save putting
     * its key, so the filter counts it twice: a second remove would take a count that a different key could as well
     * have put, and make that one "not found".)
     */
    @Test
    void twoTransactionsDeletingOneRowAtOnceRemoveItsKeyOnce() throws Exception {
        Customer customer = customers.save(new Customer("twice-" + UUID.randomUUID(), TENANT, "c"));
        customers.save(customer); // an update: its key is put again
        Long id = customer.getId();
        CountDownLatch firstDeleted = new CountDownLatch(1);
        CountDownLatch commitFirst = new CountDownLatch(1);

        TransactionTemplate transaction = new TransactionTemplate(transactionManager);
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> transaction.execute(status -> {
                    int deleted = customers.deleteCustomerById(id);
                    firstDeleted.countDown();
                    awaitLatch(commitFirst);
                    return deleted;
                }));
        awaitLatch(firstDeleted);
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(
                () -> transaction.execute(status -> customers.deleteCustomerById(id)));
        await("the second delete waits for the first's row lock").atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.queryForObject("select count(*) from information_schema.sessions"
                        + " where blocker_id is not null", Integer.class) > 0);
        commitFirst.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isOne();
        assertThat(second.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(removable.mightContain(id)).as("put twice, removed once").isTrue();
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
