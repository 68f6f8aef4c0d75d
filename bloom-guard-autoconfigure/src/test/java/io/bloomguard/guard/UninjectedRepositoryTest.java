package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.testapp.Customer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactory;
import org.springframework.data.repository.Repository;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Data repository that no bean injects at startup is created only on its first use (it is a factory
 * bean's object), yet a mistake in its annotations still stops startup, in either bootstrap mode.
 */
class UninjectedRepositoryTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:uninjected-${random.uuid}",
                    "spring.jpa.hibernate.ddl-auto=none", "bloom-guard.filters.users.expected-size=1000");

    @Test
    void aMisspelledFilterStopsStartup() {
        runner.withUserConfiguration(WithMisspelledFilter.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "on MisspelledFilterRepository.findByName: no filter named 'userz'; configured: users");
        });
    }

    @Test
    void aMisspelledFilterStopsStartupInLazyBootstrapMode() {
        runner.withUserConfiguration(WithMisspelledFilter.class)
                .withPropertyValues("spring.data.jpa.repositories.bootstrap-mode=lazy").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("no filter named 'userz'");
                });
    }

    /** Checked at startup, so the preload knows the methods each filter guards (for its "no key source" warning). */
    @Test
    void aValidLazyRepositoryIsChecked() {
        runner.withUserConfiguration(WithValidRepository.class)
                .withPropertyValues("spring.data.jpa.repositories.bootstrap-mode=lazy").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(BloomOperationSource.class).guardedMethodsByFilter())
                            .containsEntry("users", java.util.Set.of("ValidRepository.findByName"));
                });
    }

    /**
     * A repository built in code has no place inside its transaction for bloom-guard's put interceptor: its records
     * would be written without their keys, so it stops startup.
     */
    @Test
    void aRepositoryWithBloomPutThatSpringDataDidNotCreateStopsStartup() {
        runner.withUserConfiguration(WithRepositoryBuiltInCode.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("@BloomPut on "
                    + WritingRepository.class.getName() + " (bean 'writingRepository'): bloom-guard puts a repository's"
                    + " keys inside the repository's own transaction");
        });
    }

    interface WritingRepository extends Repository<Customer, Long> {

        @BloomPut(filter = "users", key = "#result.id")
        Customer save(Customer customer);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    static class WithRepositoryBuiltInCode {

        @Bean
        WritingRepository writingRepository(jakarta.persistence.EntityManager entityManager) {
            return new JpaRepositoryFactory(entityManager).getRepository(WritingRepository.class);
        }
    }

    interface MisspelledFilterRepository extends Repository<Customer, Long> {

        @BloomGuarded(filter = "userz")
        Optional<Customer> findByName(String name);
    }

    interface ValidRepository extends Repository<Customer, Long> {

        @BloomGuarded(filter = "users")
        Optional<Customer> findByName(String name);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(basePackageClasses = UninjectedRepositoryTest.class, considerNestedRepositories = true,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE,
                    classes = MisspelledFilterRepository.class))
    static class WithMisspelledFilter {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EntityScan(basePackageClasses = Customer.class)
    @EnableJpaRepositories(basePackageClasses = UninjectedRepositoryTest.class, considerNestedRepositories = true,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = ValidRepository.class))
    static class WithValidRepository {
    }
}
