package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.PlainCustomerRepository;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard under a steady stream of writes: absent keys go on being rejected (only the filter's own false
 * positives reach the database), and every record written is found the moment its write returns.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties", properties = "bloom-guard.filters.customers.expected-size=100000")
@Timeout(120)
class GuardUnderWriteLoadTest {

    /** Absent lookups per write style, at least: at ε = 0.01, 1.3 ε of them is 52. */
    private static final int LOOKUPS = 4000;

    /** Writes that run alongside the lookups, at least: the lookups go on until they have. */
    private static final int WRITES = 100;

    /** Far above any id the database hands out in a test. */
    private static final long ABSENT_IDS = 1_000_000_000_000L;

    @Autowired
    CustomerRepository customers;

    @Autowired
    PlainCustomerRepository plainCustomers;

    @Autowired
    CustomerService service;

    @Autowired
    @Qualifier("customers")
    NamedBloomFilter customersFilter;

    @Autowired
    @Qualifier("codes")
    NamedBloomFilter codesFilter;

    private static final AtomicInteger sequence = new AtomicInteger();

    @Test
    void absentIdsStayRejectedWhileARepositorySavesContinuously() throws Exception {
        assertAbsentLookupsRejectedWhile(customersFilter, n -> plainCustomers.save(customer(n)),
                id -> customers.existsById(id));
    }

    @Test
    void absentIdsStayRejectedWhileATransactionalServiceSavesThroughTheRepositoryContinuously() throws Exception {
        assertAbsentLookupsRejectedWhile(codesFilter, n -> service.saveInTransaction(customer(n)),
                id -> customers.findByTenantAndCode("tl", "absent-" + id).isPresent());
    }

    @Test
    void absentIdsStayRejectedWhileATransactionalBloomPutMethodSavesContinuously() throws Exception {
        assertAbsentLookupsRejectedWhile(customersFilter, n -> service.create("load-" + n, () -> { }),
                id -> customers.existsById(id));
    }

    /**
     * Eight threads write through every write style at once, and each record is looked up through the guard on
     * another thread as soon as its write has returned: none is ever rejected.
     */
    @Test
    void eightConcurrentWritersFindEveryRecordTheyWrote() throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(8);
        ExecutorService readers = Executors.newFixedThreadPool(4);
        AtomicInteger falseNegatives = new AtomicInteger();
        AtomicInteger checked = new AtomicInteger();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int writer = w;
                running.add(writers.submit(() -> {
                    for (int i = 0; i < 60; i++) {
                        int n = sequence.incrementAndGet();
                        boolean found = switch ((writer + i) % 3) {
                            case 0 -> {
                                long id = plainCustomers.save(customer(n)).getId();
                                yield readBack(readers, () -> customers.existsById(id));
                            }
                            case 1 -> {
                                long id = service.create("writer-" + n, () -> { }).getId();
                                yield readBack(readers, () -> customers.findById(id).isPresent());
                            }
                            default -> {
                                Customer saved = service.saveInTransaction(customer(n));
                                yield readBack(readers, () -> customers.findByTenantAndCode("tl", saved.getCode()).isPresent());
                            }
                        };
                        checked.incrementAndGet();
                        if (!found) {
                            falseNegatives.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : running) {
                writer.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            writers.shutdownNow();
            readers.shutdownNow();
        }
        assertThat(checked.get()).isEqualTo(8 * 60);
        assertThat(falseNegatives.get()).as("records rejected right after their write returned").isZero();
    }

    private static boolean readBack(ExecutorService readers, java.util.function.Supplier<Boolean> lookup) {
        return CompletableFuture.supplyAsync(lookup, readers).join();
    }

    /**
     * One thread writes without pause while this one looks up absent keys (fixed seed), at least {@value #LOOKUPS}
     * and for at least {@value #WRITES} writes: the lookups that go through the guard (passed, or skipped unchecked) stay within 1.3 times the filter's error
     * rate.
     */
    private void assertAbsentLookupsRejectedWhile(NamedBloomFilter filter, LongFunction<Object> write,
            LongPredicate lookupAbsent) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        ExecutorService writer = Executors.newSingleThreadExecutor();
        Future<?> writing = writer.submit(() -> {
            while (!stop.get()) {
                write.apply(sequence.incrementAndGet());
                writes.incrementAndGet();
            }
            return null;
        });
        long throughBefore = filter.stats().passed() + filter.stats().skipped();
        int writesBefore;
        int found = 0;
        int lookups = 0;
        try {
            org.awaitility.Awaitility.await().until(() -> writes.get() > 10);
            writesBefore = writes.get();
            Random random = new Random(42);
            while (lookups < LOOKUPS || writes.get() - writesBefore < WRITES) {
                if (lookupAbsent.test(ABSENT_IDS + random.nextInt(Integer.MAX_VALUE))) {
                    found++;
                }
                lookups++;
            }
        }
        finally {
            stop.set(true);
            writing.get(30, TimeUnit.SECONDS);
            writer.shutdownNow();
        }
        long through = filter.stats().passed() + filter.stats().skipped() - throughBefore;
        assertThat(found).as("absent keys found").isZero();
        assertThat(through).as("absent lookups that reached the database, of %d made during %d writes", lookups,
                writes.get() - writesBefore).isLessThanOrEqualTo((long) Math.floor(1.3 * filter.spec().sizing().errorRate() * lookups));
    }

    private static Customer customer(long n) {
        return new Customer("load-" + n, "tl", "plain-" + n);
    }
}
