package io.bloomguard.local;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.testapp.OwnThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@Timeout(60)
class RebuildableLocalFilterTest {

    private static final FilterSizing SIZING = FilterSizing.of(200_000, 0.01);

    /** The hash seed of every filter a test counts false positives of, and of their rebuilds. */
    private static final int SEED = 7;

    /** The "database": rows committed so far, read by the key source. */
    private final Set<Long> rows = ConcurrentHashMap.newKeySet();

    private final KeyFeed source = batches -> {
        List<Object> batch = new ArrayList<>(rows);
        batches.accept(batch);
        return batch.size();
    };

    @Test
    void aRebuildDropsDeletedKeysAndKeepsTheRest() {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(SIZING, Duration.ZERO,
                sizing -> LocalBloomFilter.create(sizing, SEED));
        filter.keySource(source);
        for (long id = 0; id < 1000; id++) {
            filter.put(id);
            rows.add(id);
        }
        for (long id = 0; id < 1000; id += 2) {
            rows.remove(id); // deleted
        }

        assertThat(filter.rebuild()).isEqualTo(500);

        int deletedStillIn = 0;
        for (long id = 0; id < 1000; id++) {
            if (id % 2 == 1) {
                assertThat(filter.mightContain(id)).as("kept %d", id).isTrue();
            }
            else if (filter.mightContain(id)) {
                deletedStillIn++;
            }
        }
        // A deleted key answers "present" only as a false positive now. 500 keys in 3,945 blocks of 512 bits: an
        // absent key's block holds 0.13 keys on average, 7 bits each, so the key passes with probability under
        // 10⁻¹² ((14/512)^7 even with two keys there), and none of the 500 does.
        assertThat(deletedStillIn).isZero();
    }

    /**
     * Writers put keys and commit rows without pause while the filter is rebuilt, and every key is checked the
     * moment its put returns: none is ever absent, before, during or after the swap.
     */
    @Test
    void writersAcrossARebuildLoseNoKey() throws Exception {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(SIZING, Duration.ofMillis(50));
        filter.keySource(source);
        for (long id = 0; id < 10_000; id++) {
            filter.put(id);
            rows.add(id);
        }
        AtomicLong nextId = new AtomicLong(10_000);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger falseNegatives = new AtomicInteger();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            running.add(writers.submit(() -> {
                while (!stop.get()) {
                    long id = nextId.getAndIncrement();
                    filter.put(id); // the key before the commit, as @BloomPut does
                    rows.add(id);
                    if (!filter.mightContain(id) || !filter.mightContain(id % 10_000)) {
                        falseNegatives.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            CompletableFuture<Long> rebuild = OwnThread.supply(filter::rebuild);
            long keys = rebuild.get(30, TimeUnit.SECONDS);
            assertThat(keys).isGreaterThanOrEqualTo(10_000);
        }
        finally {
            stop.set(true);
            for (Future<?> writer : running) {
                writer.get(30, TimeUnit.SECONDS);
            }
            writers.shutdownNow();
        }
        assertThat(falseNegatives.get()).as("keys absent right after their put, across the swap").isZero();
        for (Long id : rows) {
            assertThat(filter.mightContain(id)).as("row %d after the rebuild", id).isTrue();
        }
    }

    /**
     * A counting filter rebuilds as a plain one does, and removes work on the rebuilt filter. A remove made while the
     * rebuild runs reaches the live filter only: the new one read its keys from the source, which no longer holds the
     * deleted row, so there is nothing of it there to take back, and taking it would take other keys' counts.
     */
    @Test
    void aCountingFilterRebuildsAndRemovesFromTheRebuiltFilter() {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(SIZING, Duration.ZERO,
                sizing -> LocalCountingFilter.create(sizing, SEED));
        filter.keySource(source);
        for (long id = 0; id < 1000; id++) {
            filter.put(id);
            rows.add(id);
        }
        for (long id = 0; id < 1000; id += 2) {
            rows.remove(id);
            assertThat(filter.remove(id)).isTrue();
        }
        assertThat(filter.byteSize()).isEqualTo(4 * SIZING.byteSize());

        assertThat(filter.rebuild()).isEqualTo(500);

        assertThat(filter.live()).isInstanceOf(LocalCountingFilter.class);
        for (long id = 1; id < 1000; id += 2) {
            assertThat(filter.mightContain(id)).as("kept %d", id).isTrue();
        }
        for (long id = 1; id < 100; id += 2) {
            rows.remove(id);
            assertThat(filter.remove(id)).as("remove of %d after the rebuild", id).isTrue();
        }
        int removedStillIn = 0;
        for (long id = 1; id < 100; id += 2) {
            removedStillIn += filter.mightContain(id) ? 1 : 0;
        }
        // As above: 450 keys in a filter for 200,000, where an absent key passes with probability under 10⁻¹².
        assertThat(removedStillIn).as("removed keys passing as false positives, of 50").isZero();
        for (long id = 101; id < 1000; id += 2) {
            assertThat(filter.mightContain(id)).as("kept %d", id).isTrue();
        }
    }

    /**
     * Deletes that began before a rebuild, whose removes come after it swapped in: the new filter read the key source
     * after the rows were gone and never counted their keys, so their removes change nothing. Taken from it, the
     * removes of those that pass as false positives (a dense filter, ε = 20%) would take other keys' counts.
     */
    @Test
    void removesOfDeletesThatBeganBeforeARebuildLeaveTheRebuiltFilterAlone() {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(FilterSizing.of(1_000, 0.2), Duration.ZERO,
                sizing -> LocalCountingFilter.create(sizing, SEED));
        filter.keySource(source);
        for (long id = 0; id < 1_500; id++) {
            filter.put(id);
            rows.add(id);
        }
        long epoch = filter.buildEpoch(); // the deletes begin
        for (long id = 1_000; id < 1_500; id++) {
            rows.remove(id);
        }
        filter.rebuild();

        long removed = 0;
        for (long id = 1_000; id < 1_500; id++) {
            removed += filter.removeAt(id, epoch) ? 1 : 0;
        }

        List<Long> rejected = new ArrayList<>();
        for (long id = 0; id < 1_000; id++) {
            if (!filter.mightContain(id)) {
                rejected.add(id);
            }
        }
        assertThat(rejected).as("kept rows rejected").isEmpty();
        assertThat(removed).as("removes taken by the rebuilt filter").isZero();
        long fresh = filter.buildEpoch();
        assertThat(filter.removeAt(999L, fresh)).as("a delete that began after the rebuild removes its key").isTrue();
    }

    /** A rebuild at another size swaps in a filter of that size, at the same error rate: how a filter grows. */
    @Test
    void aRebuildForMoreKeysMakesItLarger() {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(FilterSizing.of(1_000, 0.01), Duration.ZERO);
        filter.keySource(source);
        for (long id = 0; id < 4_000; id++) {
            filter.put(id);
            rows.add(id);
        }
        assertThat(filter.approximateElementCount()).isGreaterThan(filter.capacity());

        assertThat(filter.rebuild(8_000)).isEqualTo(4_000);

        assertThat(filter.sizing()).isEqualTo(FilterSizing.of(8_000, 0.01));
        assertThat(filter.capacity()).isEqualTo(8_000);
        assertThat(filter.approximateElementCount()).isLessThan(filter.capacity());
        assertThat(filter.bitSize()).isEqualTo(FilterSizing.of(8_000, 0.01).bitSize());
        filter.rebuild();
        assertThat(filter.capacity()).as("a plain rebuild keeps the grown size").isEqualTo(8_000);
    }

    @Test
    void withoutAKeySourceItRefusesToRebuildAndKeepsItsKeys() {
        RebuildableLocalFilter filter = new RebuildableLocalFilter(SIZING, Duration.ZERO);
        filter.put("seen");

        assertThat(filter.hasKeySource()).isFalse();
        assertThatIllegalStateException().isThrownBy(filter::rebuild).withMessageContaining("no key source");
        assertThat(filter.mightContain("seen")).isTrue();
    }
}
