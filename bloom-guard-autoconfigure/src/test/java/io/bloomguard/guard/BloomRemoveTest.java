package io.bloomguard.guard;

import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.autoconfigure.BloomGuardFailureAnalyses;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerDeletions;
import io.bloomguard.testapp.RemovableCustomerRepository;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.context.TestPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @BloomRemove} on a real Spring Data JPA repository over H2, behind a counting filter: a delete takes its
 * key out once it has committed, and never before, nor when it rolls back.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class BloomRemoveTest {

    /**
     * A removed key may still pass as a false positive, at the filter's rate: at most ε = 0.01 with the filter at its
     * expected size. Of 100 removed keys the chance that more than 6 pass is below 0.0001 (binomial, p = 0.01).
     */
    private static final int REMOVED = 100;
    private static final int MAX_STILL_PASSING = 6;

    @Autowired
    RemovableCustomerRepository customers;

    @Autowired
    CustomerDeletions deletions;

    @Autowired
    @Qualifier("removable")
    NamedBloomFilter removable;

    @Test
    void deletedCustomersAreRejectedAgainAndEveryOtherIsStillFound() {
        List<Long> ids = saveNew(REMOVED);
        assertThat(ids).allSatisfy(id -> assertThat(removable.mightContain(id)).as("saved %d", id).isTrue());

        ids.forEach(customers::deleteById);

        assertThat(stillPassing(ids)).isLessThanOrEqualTo(MAX_STILL_PASSING);
        assertThat(ids).allSatisfy(id -> assertThat(customers.findById(id)).isEmpty());
        for (long preloaded = 1; preloaded <= 1_000; preloaded++) {
            assertThat(removable.mightContain(preloaded)).as("preloaded customer %d", preloaded).isTrue();
        }
    }

    @Test
    void deleteOfAnEntityAndDeleteAllByIdRemoveTheirKeys() {
        List<Long> one = saveNew(REMOVED / 2);
        List<Long> all = saveNew(REMOVED / 2);
        one.forEach(id -> customers.delete(customers.findById(id).orElseThrow()));
        customers.deleteAllById(all);
        List<Long> removed = new ArrayList<>(one);
        removed.addAll(all);
        assertThat(stillPassing(removed)).isLessThanOrEqualTo(MAX_STILL_PASSING);
    }

    @Test
    void aDeleteThatRollsBackRemovesNothing() {
        List<Long> ids = saveNew(20);
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
        List<Long> ids = saveNew(REMOVED);
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

    @Test
    void bloomRemoveOnAPlainBloomFilterStopsStartup() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
                .withPropertyValues("bloom-guard.filters.users.expected-size=1000")
                .withBean(PlainFilterDeletions.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("@BloomRemove(filter = \"users\") on PlainFilterDeletions.delete")
                            .contains("filter 'users' is a plain Bloom filter");
                    assertThat(analysis.getAction()).contains("bloom-guard.filters.users.type: counting");
                });
    }

    private List<Long> saveNew(int count) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String code = "r-" + UUID.randomUUID();
            ids.add(customers.save(new Customer(code, "t-removable", code)).getId());
        }
        return ids;
    }

    private long stillPassing(List<Long> removed) {
        return removed.stream().filter(removable::mightContain).count();
    }

    static class PlainFilterDeletions {

        @BloomRemove(filter = "users")
        public void delete(Long id) {
        }
    }
}
