package io.bloomguard.sample;

import io.bloomguard.autoconfigure.AutoConfigureBloomGuard;
import io.bloomguard.registry.NamedBloomFilter;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.context.annotation.Import;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How to test a repository that bloom-guard guards: a {@code @DataJpaTest} slice with {@link AutoConfigureBloomGuard},
 * which brings the guard and the filters in; the {@code users} filter is preloaded from {@code preload.sql} over the
 * seeded rows, as in the application. Key source beans live in configuration classes, which a slice leaves out:
 * import the ones the test needs ({@code products} here).
 */
@DataJpaTest
@AutoConfigureBloomGuard
@Import(ProductKeySourceConfiguration.class)
class UserRepositoryTest {

    /** Never written by any test, so the filter cannot hold it (keys of rolled-back test transactions stay in). */
    private static final long NEVER_A_USER = 987_654_321L;

    @Autowired
    private UserRepository users;

    @Autowired
    private ProductRepository products;

    @Autowired
    @Qualifier("users")
    private NamedBloomFilter usersFilter;

    @Autowired
    private EntityManagerFactory entityManagerFactory;

    private Statistics statistics;

    @BeforeEach
    void countStatements() {
        // users follows a change feed (application.yml): until its first poll, the filter lets lookups through.
        await().atMost(Duration.ofSeconds(10)).until(usersFilter::trustedToReject);
        statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
        statistics.clear();
    }

    @Test
    void aSeededUserIsFound() {
        assertThat(users.findById(42L)).isPresent();
    }

    @Test
    void anAbsentIdIsAnsweredWithoutAQuery() {
        long rejectedBefore = usersFilter.stats().rejected();

        assertThat(users.findById(NEVER_A_USER)).isEmpty();
        assertThat(users.existsById(NEVER_A_USER)).isFalse();

        assertThat(statistics.getPrepareStatementCount()).isZero();
        assertThat(usersFilter.stats().rejected() - rejectedBefore).isEqualTo(2);
    }

    @Test
    void aSavedUserIsFoundInItsOwnTransaction() {
        User saved = users.save(new User("New User", "new@example.com"));

        assertThat(users.findById(saved.getId())).isPresent();
    }

    @Test
    void productsArePreloadedFromTheImportedKeySource() {
        Product any = products.findAll().get(0);

        assertThat(products.findByTenantAndSku(any.getTenant(), any.getSku())).isPresent();
        assertThat(products.findByTenantAndSku(any.getTenant(), "no-such-sku")).isEmpty();
        assertThat(statistics.getPrepareStatementCount()).isEqualTo(2);
    }
}
