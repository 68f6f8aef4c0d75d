package io.bloomguard.guard;

import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import io.bloomguard.testapp.CountingCacheManager;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerFinder;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.Customers;
import io.bloomguard.testapp.Finder;
import io.bloomguard.testapp.Lookups;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testapp.TestApplication;
import io.bloomguard.testapp.Ticket;
import io.bloomguard.testapp.TicketRepository;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Slice;
import org.springframework.data.domain.Sort;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The guard on a real Spring Data JPA repository over H2, beside a real cache manager and real transactions.
 * "No database query" is measured with Hibernate's statement count, "no cache lookup" with the cache's own.
 */
@SpringBootTest(classes = TestApplication.class)
@ExtendWith(OutputCaptureExtension.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class GuardedRepositoryTest {

    private static final long ABSENT = 987_654_321L;

    @Autowired
    CustomerRepository customers;

    @Autowired
    CustomerService service;

    @Autowired
    Lookups lookups;

    @Autowired
    CountingCacheManager cacheManager;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    @Qualifier("customers")
    NamedBloomFilter customersFilter;

    @Autowired
    @Qualifier("codes")
    NamedBloomFilter codesFilter;

    @Autowired
    @Qualifier("shadowed")
    NamedBloomFilter shadowedFilter;

    @Autowired
    @Qualifier("tiny")
    NamedBloomFilter tinyFilter;

    @Autowired
    @Qualifier("fragile")
    NamedBloomFilter fragileFilter;

    @Autowired
    @Qualifier("refusing")
    NamedBloomFilter refusingFilter;

    @Autowired
    @Qualifier("mailed")
    NamedBloomFilter mailedFilter;

    @Autowired
    @Qualifier("registered")
    NamedBloomFilter registeredFilter;

    @Autowired
    CustomerFinder customerFinder;

    @Autowired
    TicketRepository tickets;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    EntityManagerFactory entityManagerFactory;

    Statistics statistics;

    @BeforeEach
    void statistics() {
        statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
    }

    @Test
    void preloadedFiltersAreReady() {
        assertThat(customersFilter.state()).isEqualTo(FilterState.READY);
        assertThat(customersFilter.approximateElementCount()).isBetween(980L, 1020L);
        assertThat(codesFilter.state()).isEqualTo(FilterState.READY);
        FilterHistory.Load preload = customersFilter.history().lastPreload();
        assertThat(preload).as("the preload, as the endpoint shows it").isNotNull();
        assertThat(preload.succeeded()).isTrue();
        assertThat(preload.keys()).isEqualTo(1000);
        assertThat(preload.source()).contains("SELECT id FROM customer");
        assertThat(customersFilter.stateSince()).isBeforeOrEqualTo(java.time.Instant.now());
    }

    @Test
    void existingKeysAreFound() {
        for (long id = 1; id <= 1000; id += 37) {
            assertThat(customers.findById(id)).as("customer %d", id).isPresent();
            assertThat(customers.existsById(id)).isTrue();
        }
        assertThat(customers.findByTenantAndCode("t1", "sku-1")).isPresent();
    }

    @Test
    void anAbsentKeyIsAnsweredWithoutTheCacheOrTheDatabase() {
        long statements = statistics.getPrepareStatementCount();
        long cacheLookups = cacheManager.lookups();
        FilterStats before = customersFilter.stats();

        assertThat(customers.findById(ABSENT)).isEmpty();

        assertThat(statistics.getPrepareStatementCount()).isEqualTo(statements);
        assertThat(cacheManager.lookups()).isEqualTo(cacheLookups);
        assertThat(customersFilter.stats().rejected()).isEqualTo(before.rejected() + 1);
    }

    @Test
    void aPresentKeyGoesThroughTheCacheAsBefore() {
        long cacheLookups = cacheManager.lookups();
        customers.findById(500L);
        long statements = statistics.getPrepareStatementCount();
        assertThat(customers.findById(500L)).isPresent();
        assertThat(cacheManager.lookups()).isEqualTo(cacheLookups + 2);
        assertThat(statistics.getPrepareStatementCount()).as("second lookup served by the cache").isEqualTo(statements);
    }

    @Test
    void rejectedCallsReturnTheEmptyValueOfTheirReturnType() {
        long statements = statistics.getPrepareStatementCount();
        assertThat(customers.findById(ABSENT)).isEqualTo(Optional.empty());
        assertThat(customers.existsById(ABSENT)).isFalse();
        assertThat(customers.countById(ABSENT)).isZero();
        assertThat(customers.listById(ABSENT)).isEqualTo(List.of());
        try (Stream<Customer> stream = customers.streamById(ABSENT)) {
            assertThat(stream).isEmpty();
        }
        assertThat(customers.findByTenantAndCode("t1", "no-such-sku")).isEmpty();
        assertThat(customers.findAllByTenantAndCode("t1", "no-such-sku")).isInstanceOf(Customers.class).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).isEqualTo(statements);
        assertThat(customers.findAllByTenantAndCode("t1", "sku-1")).as("an existing key, from the database")
                .hasSize(1);
    }

    @Test
    void aRejectedPageIsThePageTheCallAskedFor() {
        PageRequest third = PageRequest.of(2, 20, Sort.by("id"));
        long statements = statistics.getPrepareStatementCount();

        Page<Customer> page = customers.findPageByTenantAndCode("t1", "no-such-sku", third);
        Slice<Customer> slice = customers.findSliceByTenantAndCode("t1", "no-such-sku", third);

        assertThat(statistics.getPrepareStatementCount()).as("both rejected").isEqualTo(statements);
        assertThat(page.getContent()).isEmpty();
        assertThat(page.getPageable()).isEqualTo(third);
        assertThat(page.getNumber()).isEqualTo(2);
        assertThat(page.getSize()).isEqualTo(20);
        assertThat(page.getSort()).isEqualTo(Sort.by("id"));
        assertThat(page.getTotalElements()).isZero();
        assertThat(slice.getContent()).isEmpty();
        assertThat(slice.getPageable()).isEqualTo(third);
        assertThat(slice.hasNext()).isFalse();
        // The same call for a key that exists goes to the database and pages as usual.
        assertThat(customers.findPageByTenantAndCode("t1", "sku-1", PageRequest.of(0, 20)).getTotalElements())
                .isEqualTo(1);
    }

    @Test
    void textKeysFindRecordsPreloadedAsNumbers() {
        assertThat(customers.findByIdText("42")).isPresent();
        long statements = statistics.getPrepareStatementCount();
        assertThat(customers.findByIdText(Long.toString(ABSENT))).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).isEqualTo(statements);
    }

    @Test
    void aFilterThatIsNotReadyLetsEveryCallThrough() {
        customersFilter.transitionTo(FilterState.LOADING);
        try {
            long statements = statistics.getPrepareStatementCount();
            long skipped = customersFilter.stats().skipped();
            assertThat(customers.existsById(ABSENT)).isFalse();
            assertThat(statistics.getPrepareStatementCount()).isGreaterThan(statements);
            assertThat(customersFilter.stats().skipped()).isEqualTo(skipped + 1);
            assertThat(customersFilter.mightContain(ABSENT)).as("the API answers 'maybe' too").isTrue();
        }
        finally {
            customersFilter.transitionTo(FilterState.READY);
        }
    }

    /**
     * A reader that runs right after the commit of a {@code @Transactional @BloomPut} method, before the
     * method has even returned, must find the new record: the put cannot wait until after the commit.
     */
    @Test
    void aRecordIsFindableTheMomentItsTransactionCommits() throws Exception {
        AtomicReference<Optional<Customer>> seenByReader = new AtomicReference<>();
        AtomicReference<Long> id = new AtomicReference<>();
        Customer created = service.create("fresh-" + System.nanoTime(), () -> {
            Long newId = jdbc.queryForObject("select max(id) from customer", Long.class);
            id.set(newId);
            seenByReader.set(OwnThread.supply(() -> customers.findById(newId)).join());
        });
        assertThat(id.get()).isEqualTo(created.getId());
        assertThat(seenByReader.get()).as("concurrent reader after commit").isPresent();
        assertThat(customers.findById(created.getId())).isPresent();
        assertThat(customersFilter.mightContain(created.getId())).isTrue();
    }

    /** The repository's {@code @BloomPut} runs inside the caller's transaction: the key is in before commit. */
    @Test
    void aPutInsideASurroundingTransactionLandsBeforeItsCommit() {
        String code = "code-" + System.nanoTime();
        AtomicReference<Boolean> inFilterAtCommit = new AtomicReference<>();
        AtomicReference<Optional<Customer>> seenByReader = new AtomicReference<>();
        service.createWithCode("t7", code, () -> {
            inFilterAtCommit.set(codesFilter.mightContain("t7:" + code));
            seenByReader.set(OwnThread.supply(() -> customers.findByTenantAndCode("t7", code)).join());
        });
        assertThat(inFilterAtCommit.get()).isTrue();
        assertThat(seenByReader.get()).isPresent();
    }

    /**
     * A write that commits on its own before its key is known (the key is its result): a reader in between
     * must not be told the record does not exist, so the filter stops rejecting until the key is in.
     */
    @Test
    void aReaderBetweenCommitAndPutIsNotRejected() throws Exception {
        String name = "raw-" + System.nanoTime();
        AtomicReference<Optional<Customer>> seenByReader = new AtomicReference<>();
        lookups.setAfterInsert(readerOf(name, seenByReader));
        try {
            long id = lookups.insertCommittedBeforeKeyIsKnown(name);
            assertThat(seenByReader.get()).as("reader between commit and put").isPresent();
            assertThat(customersFilter.mightContain(id)).isTrue();
            assertThat(customersFilter.trustedToReject()).as("rejections resume after the put").isTrue();
        }
        finally {
            lookups.setAfterInsert(() -> { });
        }
    }

    /**
     * A method that commits in its own transaction inside the caller's ({@code REQUIRES_NEW}): its record is
     * visible to others from its own commit on, before the caller's, so its key must be in by then.
     */
    @Test
    void aReaderAtTheCommitOfARequiresNewMethodInsideACallersTransactionFindsItsRow() {
        String name = "inner-" + System.nanoTime();
        AtomicReference<Optional<Customer>> seenByReader = new AtomicReference<>();
        AtomicReference<Boolean> keyInAtCommit = new AtomicReference<>();
        Runnable reader = readerOf(name, seenByReader);
        Customer created = new TransactionTemplate(transactionManager).execute(status ->
                service.createInItsOwnTransaction(name, () -> {
                    Long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
                    keyInAtCommit.set(customersFilter.backendMightContain(id));
                    reader.run();
                }));
        assertThat(keyInAtCommit.get()).as("key in the filter's bits at the inner commit").isTrue();
        assertThat(seenByReader.get()).as("reader at the inner commit").isPresent();
        assertThat(customersFilter.mightContain(created.getId())).isTrue();
        assertThat(customersFilter.trustedToReject()).as("rejections resume after the put").isTrue();
    }

    /**
     * A {@code @Transactional} method whose row is committed by a transaction of its own further down
     * ({@code REQUIRES_NEW}): the row is visible before the method's put, so the filter holds off rejecting
     * until the key is in, even though the method's own transaction commits after the put.
     */
    @Test
    void aReaderBetweenACommitFurtherDownAndThePutIsNotRejected() {
        String name = "nested-" + System.nanoTime();
        AtomicReference<Optional<Customer>> seenByReader = new AtomicReference<>();
        Customer created = service.createInAnInnerTransaction(name, readerOf(name, seenByReader));
        assertThat(seenByReader.get()).as("reader between the inner commit and the put").isPresent();
        assertThat(customersFilter.backendMightContain(created.getId())).isTrue();
        assertThat(customersFilter.trustedToReject()).as("rejections resume after the put").isTrue();
    }

    /** A concurrent reader: looks the customer named {@code name} up by id on another thread, into {@code seen}. */
    private Runnable readerOf(String name, AtomicReference<Optional<Customer>> seen) {
        return () -> {
            Long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
            seen.set(OwnThread.supply(() -> customers.findById(id)).join());
        };
    }

    /** The writing method itself reads its new row back by id, in its own transaction, before its key is put. */
    @Test
    void aWriteThatReadsBackItsOwnRowFindsIt() {
        long pending = customersFilter.counters().skippedFor(SkipReason.WRITE_PENDING);
        Customer loaded = service.createAndLoad("reloaded-" + System.nanoTime());
        assertThat(customersFilter.backendMightContain(loaded.getId())).isTrue();
        assertThat(customersFilter.counters().skippedFor(SkipReason.WRITE_PENDING)).as("counted as skipped, and why")
                .isEqualTo(pending + 1);
    }

    /**
     * The record is written, then its key expression fails: the write stands and the caller sees no error, and
     * the filter, which now misses a record, stops rejecting.
     */
    @Test
    void aKeyThatCannotBeComputedAfterTheWriteStopsTheFilterRejecting() {
        assertThat(lookups.fragile(ABSENT)).as("an empty, ready filter rejects").isEmpty();
        assertThat(fragileFilter.stats().rejected()).isEqualTo(1);
        Customer saved = lookups.saveWithBrokenKey("fragile-" + System.nanoTime());
        assertThat(customers.findCustomerById(saved.getId())).as("the write stands").isPresent();
        assertThat(fragileFilter.state()).isEqualTo(FilterState.FAILED);
        assertThat(lookups.fragile(saved.getId())).as("the new record is found").isPresent();
    }

    /** The same when the key is computed but is of a type the filter cannot hash (a fraction). */
    @Test
    void aKeyTheFilterRefusesDoesNotFailTheWrite() {
        Customer saved = lookups.saveWithUnhashableKey("refused-" + System.nanoTime());
        assertThat(customers.findCustomerById(saved.getId())).isPresent();
        assertThat(refusingFilter.state()).isEqualTo(FilterState.FAILED);
        assertThat(lookups.refusing(saved.getId())).isPresent();
        assertThat(refusingFilter.stats().backendErrors()).isEqualTo(1);
    }

    /**
     * A write that throws before it gives its key: if its transaction rolls back nothing was written, and the
     * filter goes on rejecting; if it commits all the same (a checked exception), the row is there without its
     * key, and the filter must stop rejecting.
     */
    @Test
    void aWriteThatThrowsButCommitsStopsTheFilterRejecting() {
        String rolledBack = "unchecked-" + System.nanoTime();
        assertThatThrownBy(() -> lookups.saveThenFailUnchecked(rolledBack)).isInstanceOf(IllegalStateException.class);
        assertThat(jdbc.queryForObject("select count(*) from customer where name = ?", Integer.class, rolledBack))
                .as("rolled back").isZero();
        assertThat(mailedFilter.state()).isEqualTo(FilterState.READY);
        assertThat(lookups.mailed(ABSENT)).as("still rejects").isEmpty();
        assertThat(mailedFilter.stats().rejected()).isEqualTo(1);

        String committed = "checked-" + System.nanoTime();
        assertThatThrownBy(() -> lookups.saveThenFailToMail(committed)).isInstanceOf(IOException.class);
        Long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, committed);

        assertThat(mailedFilter.state()).isEqualTo(FilterState.FAILED);
        assertThat(lookups.mailed(id)).as("the committed row is found").isPresent();
    }

    /**
     * A composite key with a null part: SpEL would check the text "t1:null", which no record has, while the
     * derived query looks for {@code code IS NULL} and may find rows. The call goes through unchecked.
     */
    @Test
    void aCompositeKeyWithANullPartIsNotChecked() {
        FilterStats before = codesFilter.stats();
        assertThat(customers.findByTenantAndCode("t1", null)).isEmpty(); // the column is NOT NULL here
        FilterStats after = codesFilter.stats();
        assertThat(after.rejected()).as("rejected").isEqualTo(before.rejected());
        assertThat(after.skipped()).as("skipped").isEqualTo(before.skipped() + 1);
    }

    /**
     * A void write keyed on its argument, whose key cannot be computed once it has returned: it wrote all the
     * same (it returned), so the filter must stop rejecting, as when a key from the result fails.
     */
    @Test
    void aVoidWriteWhoseArgumentKeyCannotBeComputedStopsTheFilterRejecting() {
        Customer customer = new Customer("registered-" + System.nanoTime(), "t8", "registered-" + System.nanoTime());
        lookups.register(customer);
        assertThat(customers.findCustomerById(customer.getId())).as("the write stands").isPresent();
        assertThat(registeredFilter.state()).isEqualTo(FilterState.FAILED);
        assertThat(lookups.registered(customer.getId())).as("the new record is found").isPresent();
    }

    /**
     * A write keyed on an argument that never receives the key (the id goes to the database, not to the entity
     * passed in): nothing can be put, so the filter stops rejecting, and the log says so, naming the method and what
     * to key on instead.
     */
    @Test
    void aWriteWhoseArgumentKeyStaysNullStopsTheFilterRejectingAndSaysSo(CapturedOutput output) {
        String name = "untold-" + System.nanoTime();
        lookups.registerWithoutTellingTheId(new Customer(name, "t8", name));
        Long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
        assertThat(registeredFilter.state()).isEqualTo(FilterState.FAILED);
        assertThat(lookups.registered(id)).as("the new record is found").isPresent();
        assertThat(output).contains("Filter 'registered' is missing a key written by"
                + " Lookups.registerWithoutTellingTheId: its key was still null after its transaction committed",
                "Key the @BloomPut on what holds the key once written (#result.id");
    }

    /**
     * With {@code on-backend-failure: throw}, a put that fails is thrown from inside the method's transaction,
     * which rolls back: the caller gets the error, and no row exists that the filter would not know.
     */
    @Test
    void aPutThatFailsUnderTheThrowPolicyRollsTheWriteBack() {
        String name = "strict-" + System.nanoTime();
        assertThatThrownBy(() -> lookups.saveStrictlyWithUnhashableKey(name))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Double");
        assertThat(jdbc.queryForObject("select count(*) from customer where name = ?", Integer.class, name))
                .as("rows committed").isZero();
    }

    /**
     * An advice between the guard and the transaction that runs the method again after a failure (a deadlock
     * retry): the key put is that of the attempt that committed.
     */
    @Test
    void aWriteRetriedInsideTheGuardPutsTheKeyOfTheAttemptThatCommitted() {
        lookups.failNextCreate();
        Customer created = lookups.createFailingOnce("retried-" + System.nanoTime());
        assertThat(jdbc.queryForObject("select count(*) from customer where name = ?", Integer.class,
                created.getName())).as("rows committed: the second attempt's").isEqualTo(1);
        assertThat(lookups.retried(created.getId())).as("found through the filter").isPresent();
    }

    /**
     * A key the database generates when the insert is flushed, at the commit: still null where the put inside
     * the transaction reads it, so the guard puts it once the call has returned.
     */
    @Test
    void aKeyTheDatabaseFillsInAtTheFlushIsPutOnceItIsKnown() {
        Ticket saved = tickets.save(new Ticket("flushed at the commit"));
        assertThat(saved.getCode()).as("filled in by the database").isNotNull();
        assertThat(tickets.findByCode(saved.getCode())).as("found through the filter").isPresent();
    }

    /** A guard whose key expression fails on the arguments lets the call run instead of throwing. */
    @Test
    void aGuardKeyThatCannotBeComputedLetsTheCallThrough() {
        long skipped = customersFilter.stats().skipped();
        long noKey = customersFilter.counters().skippedFor(SkipReason.NO_KEY);
        assertThat(lookups.byProbe(null)).isEmpty();
        assertThat(customersFilter.stats().skipped()).isEqualTo(skipped + 1);
        assertThat(customersFilter.counters().skippedFor(SkipReason.NO_KEY)).isEqualTo(noKey + 1);
    }

    /** Called through a generic interface (a bridge method), a rejected call still answers Optional.empty(). */
    @Test
    void aCallThroughAGenericInterfaceIsRejectedWithTheEmptyValueOfTheRealMethod() {
        Finder<Optional<Customer>> finder = customerFinder;
        long queries = statistics.getPrepareStatementCount();
        assertThat(finder.find(ABSENT)).isEqualTo(Optional.empty());
        assertThat(statistics.getPrepareStatementCount()).isEqualTo(queries);
        assertThat(finder.find(1L)).isPresent();
    }

    @Test
    void shadowModeNeverRejectsAndCountsFalseNegatives() {
        FilterStats before = shadowedFilter.stats();
        // Odd ids are in the filter, even ones were left out of its key source although they exist.
        assertThat(lookups.shadowed(2L)).isPresent();
        assertThat(lookups.shadowed(4L)).isPresent();
        assertThat(lookups.shadowed(3L)).isPresent();
        assertThat(lookups.shadowed(ABSENT)).isEmpty();
        FilterStats after = shadowedFilter.stats();
        assertThat(after.rejected() - before.rejected()).isZero();
        assertThat(after.shadowFalseNegatives() - before.shadowFalseNegatives()).isEqualTo(2);
        assertThat(after.shadowRejections() - before.shadowRejections()).isGreaterThanOrEqualTo(3);
    }

    /**
     * A stream result cannot be looked into without consuming it: shadow mode does not count it as a false
     * negative, and enforce mode does not count a method returning nothing as a false positive.
     */
    @Test
    void resultsThatSayNeitherFoundNorNotFoundAreNotCounted() {
        FilterStats shadowBefore = shadowedFilter.stats();
        assertThat(lookups.shadowedStream(ABSENT)).isEmpty();
        assertThat(lookups.shadowedStream(2L)).hasSize(1);
        FilterStats shadowAfter = shadowedFilter.stats();
        assertThat(shadowAfter.shadowRejections() - shadowBefore.shadowRejections()).isEqualTo(2);
        assertThat(shadowAfter.shadowFalseNegatives()).isEqualTo(shadowBefore.shadowFalseNegatives());
        long falsePositives = tinyFilter.stats().falsePositives();
        long passed = tinyFilter.stats().passed();
        lookups.touchTiny(5L);
        assertThat(tinyFilter.stats().passed()).isEqualTo(passed + 1);
        assertThat(tinyFilter.stats().falsePositives()).isEqualTo(falsePositives);
    }

    /**
     * Enforce mode counts calls it let through that came back empty: with ε = 0.5 at its 1,000 keys, close to
     * half of 400 absent lookups pass (σ = 10), and every one of them is either rejected or counted as a false
     * positive.
     */
    @Test
    void enforceModeCountsMeasuredFalsePositives() {
        FilterStats before = tinyFilter.stats();
        int lookupsOfAbsentIds = 400;
        for (long id = 2000; id < 2000 + lookupsOfAbsentIds; id++) {
            assertThat(lookups.tiny(id)).isEmpty();
        }
        FilterStats after = tinyFilter.stats();
        long falsePositives = after.falsePositives() - before.falsePositives();
        long rejected = after.rejected() - before.rejected();
        assertThat(falsePositives + rejected).isEqualTo(lookupsOfAbsentIds);
        assertThat(falsePositives).isBetween(40L, 360L);
        assertThat(lookups.tiny(5L)).isPresent();
        assertThat(tinyFilter.stats().falsePositives()).isEqualTo(after.falsePositives());
    }

    /** {@code #customer.id} is null until the database assigns it: the key is read again after the call. */
    @Test
    void aKeyAssignedDuringTheWriteIsPutAfterIt() {
        Customer registered = service.register(new Customer("registered-" + System.nanoTime(), "t3", "r"));
        assertThat(registered.getId()).isNotNull();
        assertThat(customersFilter.mightContain(registered.getId())).isTrue();
        assertThat(customers.findById(registered.getId())).isPresent();
    }

    /**
     * Spring Data's saveAll and saveAndFlush call save past the proxy: they take the {@code @BloomPut} of the
     * repository's save, so records they write are found too.
     */
    @Test
    void recordsSavedInBulkOrWithAFlushArePutWithTheAnnotationOfSave() {
        long now = System.nanoTime();
        List<Customer> saved = customers.saveAll(List.of(new Customer("bulk-1", "t4", "a-" + now),
                new Customer("bulk-2", "t4", "b-" + now)));
        Customer flushed = customers.saveAndFlush(new Customer("flushed", "t4", "c-" + now));
        List<Customer> flushedInBulk = customers.saveAllAndFlush(List.of(new Customer("bulk-3", "t4", "d-" + now)));
        for (String code : List.of("a-" + now, "b-" + now, "c-" + now, "d-" + now)) {
            assertThat(codesFilter.mightContain("t4:" + code)).as(code).isTrue();
            assertThat(customers.findByTenantAndCode("t4", code)).as(code).isPresent();
        }
        assertThat(saved).hasSize(2);
        assertThat(flushed.getId()).isNotNull();
        assertThat(flushedInBulk).hasSize(1);
    }

    /**
     * Code that holds the repository as a {@code CrudRepository} (a generic service, say) calls the inherited
     * methods, not the user's redeclarations: the annotations on those still apply.
     */
    @Test
    void callsThroughTheGenericRepositoryTypeAreGuardedAndPutToo() {
        CrudRepository<Customer, Long> generic = customers;
        long now = System.nanoTime();
        generic.save(new Customer("generic", "t5", "g-" + now));
        assertThat(codesFilter.mightContain("t5:g-" + now)).as("put by save's @BloomPut").isTrue();
        assertThat(customers.findByTenantAndCode("t5", "g-" + now)).isPresent();
        long statements = statistics.getPrepareStatementCount();
        assertThat(generic.findById(ABSENT)).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).as("rejected by findById's @BloomGuarded").isEqualTo(statements);
        assertThat(generic.findById(7L)).isPresent();
    }

    @Test
    void createdRecordsArePutThroughTheRepositoryToo() {
        Customer saved = customers.save(new Customer("saved-" + System.nanoTime(), "t2", "x-" + System.nanoTime()));
        assertThat(codesFilter.mightContain(saved.getTenant() + ":" + saved.getCode())).isTrue();
        assertThat(customers.findByTenantAndCode(saved.getTenant(), saved.getCode())).isPresent();
    }
}
