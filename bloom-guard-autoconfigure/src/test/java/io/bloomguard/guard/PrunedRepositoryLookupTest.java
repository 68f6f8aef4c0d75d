package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.RecordedStatements;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-key lookups on a Spring Data JPA repository over H2: Spring Data's own {@code findAllById} and a derived
 * {@code …In} query, guarded, reach the database with only the keys that might exist. The statements and their bound
 * parameters are Hibernate's, as it sends them.
 *
 * <p>The customers filter is sized for 10,000 keys at 1 % and holds the 1,000 preloaded customers (and the few the
 * tests add): with 7 hashes over 95,851 bits its false-positive rate is about (1 − e^(−7·1000/95851))^7 ≈ 1e-8, so
 * among 990 absent ids the expected number of false positives is about 1e-5; the hashes' seed is fixed, so the
 * answers are the same on every run. The tests still compare with the filter's own answers, not with a constant.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class PrunedRepositoryLookupTest {

    /** Ten of the preloaded customers. */
    private static final List<Long> EXISTING = LongStream.rangeClosed(1, 10).map(i -> i * 97).boxed().toList();

    @Autowired
    CustomerRepository customers;

    @Autowired
    CustomerService service;

    @Autowired
    @Qualifier("customers")
    NamedBloomFilter customersFilter;

    @Autowired
    @Qualifier("codes")
    NamedBloomFilter codesFilter;

    @Test
    void aThousandIdsOfWhichTenExistMakeOneQueryWithTheIdsThatMightExist() {
        List<Long> asked = new ArrayList<>();
        IntStream.range(0, 1000).forEach(i -> asked.add((i % 100 == 50) ? EXISTING.get(i / 100) : 5_000_000L + i));
        List<Long> mightExist = mightExist(customersFilter, asked);
        assertThat(mightExist).containsAll(EXISTING).hasSizeLessThanOrEqualTo(EXISTING.size() + 1);

        AtomicReference<List<Customer>> found = new AtomicReference<>();
        List<String> statements = RecordedStatements.during(() -> found.set(customers.findAllById(asked)));

        assertThat(statements).as("one query").hasSize(1);
        assertThat(RecordedStatements.boundParameters(statements.get(0))).as("bound ids")
                .isEqualTo(mightExist.size());
        assertThat(found.get()).extracting(Customer::getId).containsExactlyInAnyOrderElementsOf(EXISTING);
    }

    @Test
    void idsThatAllDoNotExistMakeNoQuery() {
        List<Long> asked = LongStream.range(6_000_000L, 6_001_000L).boxed().toList();
        assertThat(mightExist(customersFilter, asked)).isEmpty();

        AtomicReference<List<Customer>> found = new AtomicReference<>();
        List<String> statements = RecordedStatements.during(() -> found.set(customers.findAllById(asked)));

        assertThat(statements).as("no query").isEmpty();
        assertThat(found.get()).isEmpty();
    }

    @Test
    void aDerivedInQueryBindsOnlyTheCodesThatMightExistForItsTenant() {
        // codes are 'sku-N', in tenant 't' + N % 3; sku-3 … sku-30 are in t0, the others asked for are not
        List<String> asked = new ArrayList<>();
        IntStream.rangeClosed(1, 10).forEach(n -> asked.add("sku-" + (3 * n)));
        IntStream.range(0, 990).forEach(n -> asked.add("no-such-sku-" + n));
        List<String> mightExist = mightExist(codesFilter, asked.stream().map(code -> "t0:" + code).toList());
        assertThat(mightExist).hasSizeBetween(10, 11); // 990 absent at 0.1 %: about 1 expected, bounded by the filter

        AtomicReference<List<Customer>> found = new AtomicReference<>();
        List<String> statements = RecordedStatements.during(() -> found.set(customers.findByTenantAndCodeIn("t0", asked)));

        assertThat(statements).hasSize(1);
        assertThat(RecordedStatements.boundParameters(statements.get(0))).as("the tenant and the codes")
                .isEqualTo(1 + mightExist.size());
        assertThat(found.get()).extracting(Customer::getCode)
                .containsExactlyInAnyOrderElementsOf(asked.subList(0, 10));
    }

    @Test
    void aWriteThatReadsBackItsNewRowInABatchFindsIt() {
        long pending = customersFilter.counters().skippedFor(SkipReason.WRITE_PENDING);
        List<Customer> loaded = service.createAndLoadAmong("batch-" + System.nanoTime(), List.of(97L, 7_000_001L));
        assertThat(loaded).extracting(Customer::getName).anyMatch(name -> name.startsWith("batch-"));
        assertThat(loaded).extracting(Customer::getId).contains(97L);
        assertThat(customersFilter.counters().skippedFor(SkipReason.WRITE_PENDING)).as("the filter could not decide")
                .isEqualTo(pending + 1);
    }

    @Test
    void aRowCommittedAMomentAgoIsFoundInABatch() {
        Customer created = service.create("committed-" + System.nanoTime(), () -> { });
        assertThat(customers.findAllById(List.of(created.getId(), 7_000_002L))).extracting(Customer::getId)
                .containsExactly(created.getId());
    }

    private static <K> List<K> mightExist(NamedBloomFilter filter, List<K> keys) {
        boolean[] answers = filter.mightContainAll(keys);
        return IntStream.range(0, keys.size()).filter(i -> answers[i]).mapToObj(keys::get).toList();
    }
}
