package io.bloomguard.registry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A counting filter counts a key once per row its key source yields, and a proven delete takes one count back: a
 * query that yields a key once for many rows ({@code DISTINCT}, {@code GROUP BY}, {@code UNION}) would let the
 * delete of one row take the key out for all the others. Such a query is refused for a counting filter.
 */
class CountingKeySourceRuleTest {

    @Test
    void aCountingFilterWhoseQueryYieldsAKeyOnceForManyRowsIsRefused() {
        assertThatThrownBy(() -> counting("SELECT DISTINCT customer_id FROM orders"))
                .isInstanceOf(InvalidFilterSpecException.class)
                .hasMessageContaining("preload.sql of filter 'customers'")
                .hasMessageContaining("without DISTINCT")
                .hasMessageContaining("SELECT customer_id FROM orders");
        assertThatThrownBy(() -> counting("select customer_id from orders\n group  by customer_id"))
                .hasMessageContaining("without group by");
        assertThatThrownBy(() -> counting("SELECT customer_id FROM orders UNION SELECT customer_id FROM returns"))
                .hasMessageContaining("without UNION");
    }

    @Test
    void aQueryThatYieldsOneKeyPerRowIsAccepted() {
        assertThat(counting("SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM returns")
                .lifecycle().preloadSql()).isNotNull();
        assertThat(counting("SELECT distinct_id FROM orders WHERE note <> 'distinct' -- not DISTINCT\n")
                .lifecycle().preloadSql()).isNotNull();
        assertThat(counting("SELECT id FROM \"GROUP BY\" /* no DISTINCT here */").lifecycle().preloadSql())
                .isNotNull();
    }

    /** A plain filter's bits are set or not: a key read once or many times sets the same bits. */
    @Test
    void aPlainFilterMayDeduplicate() {
        assertThat(FilterSpec.builder("customers").expectedSize(1000).type(FilterType.BLOOM)
                .preloadSql("SELECT DISTINCT customer_id FROM orders").build().lifecycle().preloadSql()).isNotNull();
    }

    private static FilterSpec counting(String sql) {
        return FilterSpec.builder("customers").expectedSize(1000).type(FilterType.COUNTING).growth(GrowthPolicy.NONE)
                .preloadSql(sql).build();
    }
}
