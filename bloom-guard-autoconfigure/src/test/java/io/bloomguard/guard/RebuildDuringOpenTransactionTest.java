package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.OwnThread;
import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A transaction that stays open across a rebuild of a local filter: the keys it put before the rebuild began reach
 * only the generation the rebuild replaces, and the rebuild's read of the key source cannot see its rows. Once it
 * commits, every row it wrote is found through the guarded repository, whether the rebuild was asked for or set off
 * by the import itself growing the filter past its expected size.
 */
@SpringBootTest(classes = TestApplication.class, properties = {"bloom-guard.filters.codes.expected-size=500",
        // Nothing held back: the swap itself must keep the rows (a table of many rows would not be held either).
        "bloom-guard.filters.codes.rebuild.hold-below=0"})
@TestPropertySource(locations = "classpath:testapp.properties")
@Timeout(120)
class RebuildDuringOpenTransactionTest {

    @Autowired
    CustomerRepository customers;

    @Autowired
    PlatformTransactionManager transactions;

    @Autowired
    @Qualifier("codes")
    NamedBloomFilter codes;

    @Test
    void rowsOfATransactionOpenAcrossARebuildAreFoundOnceItCommits() {
        String tenant = "open-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> written = IntStream.range(0, 300).mapToObj(i -> "code-" + i).toList();

        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            written.forEach(code -> customers.save(new Customer(tenant + code, tenant, code)));
            // Another thread, another connection: the rebuild reads the committed rows only. A growth rebuild may be
            // under way (the filter is small): then once it is over.
            await("a rebuild that ran").atMost(Duration.ofSeconds(60))
                    .until(() -> OwnThread.supply(this::rebuilt).join());
        });

        assertThat(rejected(tenant, written)).as("rows rejected after the commit").isEmpty();
    }

    @Test
    void rowsOfAnImportThatGrowsTheFilterFromInsideItsTransactionAreFoundOnceItCommits() {
        String tenant = "import-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> written = IntStream.range(0, 2_000).mapToObj(i -> "code-" + i).toList();

        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            written.forEach(code -> customers.save(new Customer(tenant + code, tenant, code)));
            // The import passed the filter's expected size: growth rebuilds it larger while the transaction is open.
            await("a growth rebuild begun and swapped in").atMost(Duration.ofSeconds(60))
                    .until(() -> codes.capacity() > 500 && !codes.growing());
        });

        assertThat(rejected(tenant, written)).as("rows rejected after the commit").isEmpty();
    }

    private boolean rebuilt() {
        try {
            codes.rebuild();
            return true;
        }
        catch (IllegalStateException underWay) {
            return false;
        }
    }

    private List<String> rejected(String tenant, List<String> codesWritten) {
        return codesWritten.stream().filter(code -> customers.findByTenantAndCode(tenant, code).isEmpty()).toList();
    }
}
