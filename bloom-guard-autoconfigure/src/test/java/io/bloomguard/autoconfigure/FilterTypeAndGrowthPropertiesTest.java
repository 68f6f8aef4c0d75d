package io.bloomguard.autoconfigure;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.LocalCuckooFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.local.ScalableLocalFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code type} and {@code growth}: inherited and overridden as every filter property, and refused where not built. */
class FilterTypeAndGrowthPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class));

    @Test
    void aFilterIsAPlainBloomFilterThatRebuildsToGrowUnlessConfiguredOtherwise() {
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=1000").run(context -> {
            NamedBloomFilter users = context.getBean(BloomFilterRegistry.class).get("users");
            assertThat(users.spec().sizing().type()).isEqualTo(FilterType.BLOOM);
            assertThat(users.spec().sizing().growth()).isEqualTo(GrowthPolicy.REBUILD);
            assertThat(live(users)).isInstanceOf(LocalBloomFilter.class);
        });
    }

    @Test
    void typeAndGrowthAreInheritedAndOverridden() {
        runner.withPropertyValues("bloom-guard.defaults.type=counting", "bloom-guard.defaults.growth=none",
                "bloom-guard.filters.sessions.expected-size=1000",
                "bloom-guard.filters.ids.expected-size=1000", "bloom-guard.filters.ids.type=bloom",
                "bloom-guard.filters.ids.growth=scale").run(context -> {
                    BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
                    NamedBloomFilter sessions = registry.get("sessions");
                    assertThat(sessions.spec().sizing().type()).isEqualTo(FilterType.COUNTING);
                    assertThat(sessions.spec().sizing().growth()).isEqualTo(GrowthPolicy.NONE);
                    assertThat(live(sessions)).isInstanceOf(LocalCountingFilter.class);
                    assertThat(sessions.byteSize()).isEqualTo(4 * FilterSizing.of(1000, 0.01).byteSize());
                    NamedBloomFilter ids = registry.get("ids");
                    assertThat(ids.spec().sizing().type()).isEqualTo(FilterType.BLOOM);
                    assertThat(ids.spec().sizing().growth()).isEqualTo(GrowthPolicy.SCALE);
                    assertThat(live(ids)).isInstanceOf(ScalableLocalFilter.class);
                    assertThat(ids.sizing()).isEqualTo(ScalableSizing.of(1000, 0.01).layer(0));
                    assertThat(ids.capacity()).isEqualTo(1000);
                    assertThat(ids.layerCount()).isEqualTo(1);
                    for (long key = 0; key < 1500; key++) {
                        ids.put(key);
                    }
                    assertThat(ids.layerCount()).as("a layer added past its expected size").isEqualTo(2);
                    assertThat(ids.capacity()).isEqualTo(3000);
                    assertThat(sessions.layerCount()).isEqualTo(1);
                });
    }

    /** Its layers share one hash slot, so the filter cannot be split over shards. */
    @Test
    void aScalableRedisFilterSplitOverShardsFailsStartupNamingTheProperty() {
        assertInvalid("bloom-guard.filters.users.redis.shards", "4", "keeps its layers in one hash slot",
                "bloom-guard.defaults.backend=redis", "bloom-guard.filters.users.growth=scale",
                "bloom-guard.filters.users.redis.shards=4");
    }

    /** Each layer is one Redis string: a first layer larger than 512 MiB could never be stored. */
    @Test
    void aScalableRedisFilterWhoseFirstLayerExceedsOneRedisStringFailsStartup() {
        assertInvalid("bloom-guard.filters.users.expected-size", "5000000000", "one Redis string of at most 512 MiB",
                "bloom-guard.defaults.backend=redis", "bloom-guard.filters.users.growth=scale",
                "bloom-guard.filters.users.expected-size=5000000000", "bloom-guard.filters.users.error-rate=0.1");
    }

    @Test
    void aCountingFilterThatScalesFailsStartupSayingWhy() {
        assertInvalid("bloom-guard.defaults.growth", "scale", "a counting filter cannot grow by layers",
                "bloom-guard.defaults.growth=scale", "bloom-guard.filters.users.type=counting");
    }

    /** A cuckoo filter is local, grows by rebuilds, and takes about a quarter of a counting filter's memory. */
    @Test
    void aCuckooFilterIsALocalTableAtAFractionOfACountingFiltersMemory() {
        runner.withPropertyValues("bloom-guard.filters.sessions.expected-size=100000",
                "bloom-guard.filters.sessions.type=cuckoo").run(context -> {
                    NamedBloomFilter sessions = context.getBean(BloomFilterRegistry.class).get("sessions");
                    assertThat(sessions.spec().sizing().type()).isEqualTo(FilterType.CUCKOO);
                    assertThat(sessions.spec().sizing().growth()).isEqualTo(GrowthPolicy.REBUILD);
                    assertThat(live(sessions)).isInstanceOf(LocalCuckooFilter.class);
                    assertThat(sessions.byteSize()).isLessThan(FilterType.COUNTING.byteSize(sessions.sizing()) / 3);
                });
    }

    @Test
    void aCuckooFilterThatScalesFailsStartupSayingWhy() {
        assertInvalid("bloom-guard.filters.users.growth", "scale", "a cuckoo filter cannot grow by layers",
                "bloom-guard.filters.users.growth=scale", "bloom-guard.filters.users.type=cuckoo");
    }

    /** On Redis a cuckoo filter is the server's own (CF.*), not bloom-guard's bitmap. */
    @Test
    void aCuckooFilterOnTheRedisBitmapFailsStartupSayingWhatItNeeds() {
        assertInvalid("bloom-guard.filters.users.type", "cuckoo", "type: cuckoo on the redis backend is the"
                + " server's cuckoo filter, CF.*: set redis.kind: native", "bloom-guard.defaults.backend=redis",
                "bloom-guard.filters.users.type=cuckoo");
    }

    /** Fingerprints are at most 32 bits: a rate below 8/2^32 could never be met. */
    @Test
    void aCuckooFilterWithAnErrorRateItsFingerprintsCannotMeetFailsStartup() {
        assertInvalid("bloom-guard.filters.users.error-rate", "1.0E-10", "whose fingerprints are at most 32 bits",
                "bloom-guard.filters.users.type=cuckoo", "bloom-guard.filters.users.error-rate=1e-10");
    }

    /** A counting filter needs four times the memory: the heap check counts it. */
    @Test
    void aCountingFilterTooLargeForTheHeapFailsStartup() {
        long heap = Runtime.getRuntime().maxMemory();
        long perMillion = FilterSizing.of(1_000_000, 0.01).byteSize();
        long fitsAsBits = (long) (0.5 * heap / perMillion * 1_000_000); // half the heap as bits, twice it as counters
        runner.withPropertyValues("bloom-guard.filters.users.expected-size=" + fitsAsBits,
                "bloom-guard.filters.users.type=counting").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("bloom-guard.filters.users.expected-size")
                            .contains("more than the heap");
                });
    }

    /** A counting filter counts a key once per row read: one delete must not take out a key other rows share. */
    @Test
    void aCountingFilterWhoseQueryDeduplicatesKeysFailsStartupNamingTheProperty() {
        assertInvalid("bloom-guard.filters.customers.preload.sql", "SELECT DISTINCT customer_id FROM orders",
                "a query that yields one key per row, duplicates included, without DISTINCT",
                "bloom-guard.filters.customers.expected-size=1000", "bloom-guard.filters.customers.type=counting",
                "bloom-guard.filters.customers.preload.sql=SELECT DISTINCT customer_id FROM orders");
    }

    private void assertInvalid(String property, String value, String allowed, String... properties) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis").isNotNull();
            assertThat(analysis.getDescription()).contains("Invalid value '" + value + "' for property " + property)
                    .contains(allowed);
            assertThat(analysis.getAction()).contains("Update " + property);
        });
    }

    private static Object live(NamedBloomFilter filter) {
        return ((RebuildableLocalFilter) filter.backend()).live();
    }
}
