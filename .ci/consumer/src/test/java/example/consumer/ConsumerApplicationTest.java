package example.consumer;

import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterState;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The published starter, as an application gets it: a present id reaches the store, an absent one does not. */
@SpringBootTest
class ConsumerApplicationTest {

    @Autowired
    CustomerStore customers;

    @Autowired
    BloomFilterRegistry filters;

    @Test
    void theGuardLetsPresentIdsThroughAndRejectsAnAbsentOne() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> filters.get("customers").state() == FilterState.READY);
        int before = customers.lookups();

        assertThat(customers.findById(2L)).contains("Grace");
        assertThat(customers.lookups()).isEqualTo(before + 1);

        assertThat(customers.findById(987_654_321L)).isEmpty();
        assertThat(customers.lookups()).as("the absent id never reached the store").isEqualTo(before + 1);
    }
}
