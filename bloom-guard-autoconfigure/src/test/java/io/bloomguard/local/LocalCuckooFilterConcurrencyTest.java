package io.bloomguard.local;

import io.bloomguard.core.FilterSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cuckoo filter's puts move other keys' fingerprints between buckets; checks that run meanwhile must still find
 * every key that is in. The smallest table, 2 buckets of 4 slots, holds 7 stable keys; two threads each put two more
 * keys and remove them again, over and over: each one's second put finds the table full and runs a whole eviction
 * chain (500 moves, one fingerprint out of the table at every moment) before its fingerprint goes to the overflow
 * set, while readers check the 7 stable keys without pause. Checks that trust what they read without validating it
 * miss hundreds of keys here.
 */
@Timeout(120)
class LocalCuckooFilterConcurrencyTest {

    private static final int SEED = 0x5eed;

    @Test
    void checksNeverMissAKeyWhileOtherPutsRelocateItsFingerprint() throws Exception {
        FilterSizing sizing = FilterSizing.of(1, 0.01);
        LocalCuckooFilter filter = LocalCuckooFilter.create(sizing, SEED);
        long slots = filter.layout().slotCount();
        assertThat(slots).isEqualTo(8);
        long[] stable = new SplittableRandom(1).longs(slots - 1).toArray();
        long[] churning = new SplittableRandom(2).longs(4).toArray();
        for (long key : stable) {
            filter.put(key);
        }
        int writers = 2;
        int readers = 2;
        ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<?>> writing0 = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int first = t * churning.length / writers;
                int last = (t + 1) * churning.length / writers;
                writing0.add(pool.submit(() -> {
                    start.await();
                    for (int round = 0; round < 50_000; round++) {
                        for (int i = first; i < last; i++) {
                            filter.put(churning[i]);
                        }
                        for (int i = first; i < last; i++) {
                            assertThat(filter.remove(churning[i])).as("remove of a key this thread put").isTrue();
                        }
                    }
                    return null;
                }));
            }
            List<Future<Long>> checks = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                checks.add(pool.submit(() -> {
                    start.await();
                    long misses = 0;
                    while (writing.get()) {
                        for (long key : stable) {
                            misses += filter.mightContain(key) ? 0 : 1;
                        }
                    }
                    return misses;
                }));
            }
            start.countDown();
            for (Future<?> writer : writing0) {
                writer.get(100, TimeUnit.SECONDS);
            }
            writing.set(false);
            for (Future<Long> check : checks) {
                assertThat(check.get(10, TimeUnit.SECONDS)).as("stable keys found absent while others moved")
                        .isZero();
            }
        }
        finally {
            writing.set(false);
            pool.shutdownNow();
        }
        for (long key : stable) {
            assertThat(filter.mightContain(key)).as("key %d", key).isTrue();
        }
        assertThat(filter.approximateElementCount()).as("every churning copy taken back").isEqualTo(stable.length);
    }
}
