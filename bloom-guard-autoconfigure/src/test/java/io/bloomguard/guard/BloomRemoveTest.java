package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerDeletions;
import io.bloomguard.testapp.RemovableCustomerRepository;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @BloomRemove} on a real Spring Data JPA repository over H2, behind a counting filter: a delete takes its
 * key out once it has committed, never before, nor when it rolls back, and only when its result proves that it
 * deleted the row. A remove of a key whose row is still there would make that record "not found".
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class BloomRemoveTest {

    /**
     * A removed key may still pass as a false positive, at the filter's rate: at most ε = 0.01 with the filter at its
     * expected size. Of 100 removed keys the chance that more than 6 pass is below 0.0001 (binomial, p = 0.01).
     */
    static final int REMOVED = 100;
    static final int MAX_STILL_PASSING = 6;

    static final String TENANT = "t-removable";

    @Autowired
    RemovableCustomerRepository customers;

    @Autowired
    CustomerDeletions deletions;

    @Autowired
    @Qualifier("removable")
    NamedBloomFilter removable;

    @Test
    void deletedCustomersAreRejectedAgainAndEveryOtherIsStillFound() {
        List<Long> ids = saveNew(REMOVED, TENANT);
        assertThat(ids).allSatisfy(id -> assertThat(removable.mightContain(id)).as("saved %d", id).isTrue());

        ids.forEach(id -> assertThat(customers.deleteCustomerById(id)).isOne());

        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).isEmpty());
        for (long preloaded = 1; preloaded <= 1_000; preloaded++) {
            assertThat(removable.mightContain(preloaded)).as("preloaded customer %d", preloaded).isTrue();
        }
    }

    /**
     * A delete that matches no row (another tenant's customer: the query's condition leaves it) returns 0 and removes
     * nothing: that customer is still found.
     */
    @Test
    void aDeleteThatDeletedNothingLeavesTheKeyOfTheRowStillThere() {
        List<Long> ids = saveNew(REMOVED, TENANT);

        ids.forEach(id -> assertThat(customers.deleteByIdAndTenant(id, "t-someone-else")).isZero());

        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
        ids.forEach(id -> assertThat(customers.deleteByIdAndTenant(id, TENANT)).isOne());
        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    /** A derived delete that returns the deleted entities proves each of its keys. */
    @Test
    void aDeleteReturningTheDeletedEntitiesRemovesEachOfTheirKeys() {
        List<Long> ids = saveNew(REMOVED, TENANT);

        assertThat(customers.deleteAllByIdIn(ids)).hasSize(REMOVED);

        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    /**
     * A count of fewer rows than the delete named keys does not say whose rows went: no key is removed, and the
     * customers it did not delete (another tenant's) are still found.
     */
    @Test
    void aCountOfFewerRowsThanKeysRemovesNoneOfThem() {
        List<Long> own = saveNew(REMOVED / 2, TENANT);
        List<Long> others = saveNew(REMOVED / 2, "t-elsewhere");
        List<Long> named = new ArrayList<>(own);
        named.addAll(others);

        assertThat(customers.deleteByIdInAndTenant(named, TENANT)).isEqualTo(own.size());

        assertThat(others).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());
        assertThat(stillPassing(own)).as("deleted, left in as false positives").isEqualTo(own.size());
    }

    /** A result that says nothing by itself, and a condition that reads it. */
    @Test
    void aConditionDecidesWhetherTheKeyIsRemoved() {
        List<Long> ids = saveNew(REMOVED, TENANT);

        ids.forEach(id -> assertThat(deletions.remove(id, "t-someone-else").deleted()).isFalse());
        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).as("customer %d", id).isPresent());

        ids.forEach(id -> assertThat(deletions.remove(id, TENANT).deleted()).isTrue());
        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    /** With no transaction the delete has committed when the method returns: the key goes then. */
    @Test
    void aDeleteWithNoTransactionRemovesTheKeyWhenItReturns() {
        List<Long> ids = saveNew(REMOVED, TENANT);

        ids.forEach(id -> assertThat(deletions.deleteRow(id)).isOne());

        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    @Test
    void aDeleteThatRollsBackRemovesNothing() {
        List<Long> ids = saveNew(20, TENANT);
        for (Long id : ids) {
            assertThatThrownBy(() -> deletions.deleteThenFail(id)).isInstanceOf(IllegalStateException.class);
        }
        assertThat(ids).allSatisfy(id -> {
            assertThat(removable.mightContain(id)).as("customer %d, whose delete rolled back", id).isTrue();
            assertThat(customers.findById(id)).isPresent();
        });
    }

    /** Before the commit the row is still there for every other transaction: its key must be too. */
    @Test
    void theKeyStaysInUntilTheDeleteCommits() {
        List<Long> ids = saveNew(REMOVED, TENANT);
        List<Long> missingBeforeCommit = new ArrayList<>();
        for (Long id : ids) {
            deletions.delete(id, () -> {
                if (!removable.mightContain(id)) {
                    missingBeforeCommit.add(id);
                }
            });
        }
        assertThat(missingBeforeCommit).as("removed before the commit").isEmpty();
        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    private List<Long> saveNew(int count, String tenant) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String code = "r-" + UUID.randomUUID();
            ids.add(customers.save(new Customer(code, tenant, code)).getId());
        }
        return ids;
    }

    private long stillPassing(List<Long> removed) {
        return removed.stream().filter(removable::mightContain).count();
    }
}
