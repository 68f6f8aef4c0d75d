package io.bloomguard.guard;

import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.autoconfigure.BloomGuardFailureAnalyses;
import io.bloomguard.testapp.Customer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.data.repository.CrudRepository;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What startup refuses in a {@code @BloomRemove}: a plain filter, and a delete whose result cannot prove that it
 * deleted anything (Spring Data's {@code void deleteById} ignores an id with no row) unless a condition does; and the
 * forms it takes.
 */
class BloomRemoveValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=1000",
                    "bloom-guard.filters.users.type=counting");

    @Test
    void bloomRemoveOnAPlainBloomFilterStopsStartup() {
        runner.withPropertyValues("bloom-guard.filters.users.type=bloom").withBean(CountingDeletions.class)
                .run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription())
                            .contains("@BloomRemove(filter = \"users\") on CountingDeletions.delete")
                            .contains("filter 'users' is a plain Bloom filter");
                    assertThat(analysis.getAction()).contains("bloom-guard.filters.users.type: counting");
                });
    }

    @Test
    void aVoidDeleteStopsStartupAndSaysToReturnWhatItDeleted() {
        runner.withBean(VoidDeletions.class).run(context -> {
            FailureAnalysis analysis = analysis(context);
            assertThat(analysis.getDescription())
                    .contains("@BloomRemove(filter = \"users\") on VoidDeletions.delete: it returns void, which does"
                            + " not say whether the call deleted anything");
            assertThat(analysis.getAction()).contains("the count of a JDBC update or a @Modifying query (int or long)")
                    .contains("condition = ");
        });
    }

    @Test
    void aSpringDataDeleteByIdStopsStartupAndNamesADeleteThatCounts() {
        new ApplicationContextRunner()
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:void-deletes-${random.uuid}",
                        "spring.jpa.hibernate.ddl-auto=none", "bloom-guard.filters.users.expected-size=1000",
                        "bloom-guard.filters.users.type=counting")
                .withUserConfiguration(WithVoidDeleteRepository.class).run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription())
                            .contains("@BloomRemove(filter = \"users\") on VoidDeleteRepository.deleteById: it"
                                    + " returns void");
                    assertThat(analysis.getAction()).contains("@Transactional @Modifying @Query(\"delete from"
                            + " Customer c where c.id = :id\") int deleteCustomerById(Long id)")
                            .contains("long removeById(Long id)");
                });
    }

    /** A result of a type no rule reads (here, text) proves nothing either. */
    @Test
    void aResultThatSaysNothingStopsStartup() {
        runner.withBean(TextDeletions.class).run(context -> assertThat(analysis(context).getDescription())
                .contains("on TextDeletions.delete: it returns java.lang.String, which does not say"));
    }

    @Test
    void aConditionOnTheResultOfAVoidMethodStopsStartup() {
        runner.withBean(VoidConditionDeletions.class).run(context -> assertThat(analysis(context).getDescription())
                .contains("@BloomRemove(filter = \"users\", condition = \"#result != null\") on"
                        + " VoidConditionDeletions.delete: the condition uses #result, but the method returns"
                        + " nothing"));
    }

    /** Counts, flags, entities, collections of them, and a condition over the parameters of a void method. */
    @Test
    void deletesThatReturnWhatTheyDeletedOrHaveAConditionStart() {
        runner.withBean(ProvingDeletions.class).run(context -> assertThat(context).hasNotFailed());
    }

    private static FailureAnalysis analysis(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
    }

    static class CountingDeletions {

        @BloomRemove(filter = "users")
        public int delete(Long id) {
            return 0;
        }
    }

    static class VoidDeletions {

        @BloomRemove(filter = "users")
        public void delete(Long id) {
        }
    }

    static class TextDeletions {

        @BloomRemove(filter = "users")
        public String delete(Long id) {
            return "done";
        }
    }

    static class VoidConditionDeletions {

        @BloomRemove(filter = "users", condition = "#result != null")
        public void delete(Long id) {
        }
    }

    static class ProvingDeletions {

        @BloomRemove(filter = "users")
        public int delete(Long id) {
            return 0;
        }

        @BloomRemove(filter = "users")
        public Long deleteCounting(Long id) {
            return 0L;
        }

        @BloomRemove(filter = "users")
        public boolean deleteIfThere(Long id) {
            return false;
        }

        @BloomRemove(filter = "users", key = "#result.id")
        public Customer deleteReturning(Long id) {
            return null;
        }

        @BloomRemove(filter = "users")
        public Optional<Customer> deleteIfFound(Long id) {
            return Optional.empty();
        }

        @BloomRemove(filter = "users", key = "#ids")
        public List<Customer> deleteAll(List<Long> ids) {
            return List.of();
        }

        @BloomRemove(filter = "users", key = "#ids")
        public Customer[] deleteEach(Long[] ids) {
            return new Customer[0];
        }

        @BloomRemove(filter = "users", key = "#id", condition = "#force")
        public void deleteForcibly(Long id, boolean force) {
        }
    }

    interface VoidDeleteRepository extends CrudRepository<Customer, Long> {

        @Override
        @BloomRemove(filter = "users")
        void deleteById(Long id);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(basePackageClasses = BloomRemoveValidationTest.class, considerNestedRepositories = true,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE,
                    classes = VoidDeleteRepository.class))
    static class WithVoidDeleteRepository {
    }
}
