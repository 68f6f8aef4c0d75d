package io.bloomguard.local;

import io.bloomguard.core.CountingBlockLayout;
import io.bloomguard.core.FilterSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two removes of one key, put once, at the same moment (two deletes of one row that both believe they deleted it, or
 * a retried request): the key's counts are taken once, as by two removes one after the other, and no other key of its
 * block loses a count. Checked in many rounds, each a fresh filter of one block that every key shares.
 */
@Timeout(120)
class LocalCountingFilterConcurrentRemoveTest {

    private static final int SEED = 0x5eed;
    private static final int ROUNDS = 20_000;
    private static final int OTHER_KEYS = 30;

    @Test
    void twoRemovesOfAKeyPutOnceAtOnceTakeItsCountsOnceAndNoOtherKeys() throws Exception {
        FilterSizing sizing = FilterSizing.of(OTHER_KEYS, 0.01);
        assertThat(sizing.blockCount()).as("one block, shared by every key").isOne();
        int k = sizing.hashCount();
        SplittableRandom random = new SplittableRandom(SEED);
        RemoveRace race = new RemoveRace();
        ExecutorService other = Executors.newSingleThreadExecutor();
        List<String> wrongRounds = new ArrayList<>();
        int rounds = 0;
        try {
            Future<?> otherRemover = other.submit(race::removeInEveryRound);
            while (rounds < ROUNDS) {
                long victim = random.nextLong();
                long[] others = random.longs(OTHER_KEYS).toArray();
                if (!hasACounterOfItsOwn(sizing, victim, others)) {
                    // Then a second remove takes counts of other keys even one after the other: the caller's mistake.
                    continue;
                }
                rounds++;
                LocalCountingFilter filter = LocalCountingFilter.create(sizing, SEED);
                filter.put(victim);
                for (long key : others) {
                    filter.put(key);
                }
                long before = counterSum(filter);

                race.removeTogether(filter, victim);

                long taken = before - counterSum(filter);
                int othersRejected = 0;
                for (long key : others) {
                    othersRejected += filter.mightContain(key) ? 0 : 1;
                }
                if (taken != k || othersRejected > 0) {
                    wrongRounds.add("round " + rounds + ": " + taken + " counts taken, " + othersRejected
                            + " other keys rejected");
                }
            }
            race.stop();
            otherRemover.get(10, TimeUnit.SECONDS);
        }
        finally {
            race.stop();
            other.shutdownNow();
        }
        assertThat(wrongRounds).as("rounds out of %d that took more than one remove's counts", rounds).isEmpty();
    }

    /** Whether, removed once after the other keys were put, the key is certainly absent: a counter was its alone. */
    private static boolean hasACounterOfItsOwn(FilterSizing sizing, long key, long[] others) {
        LocalCountingFilter twin = LocalCountingFilter.create(sizing, SEED);
        twin.put(key);
        for (long other : others) {
            twin.put(other);
        }
        twin.remove(key);
        return !twin.mightContain(key);
    }

    private static long counterSum(LocalCountingFilter filter) {
        long[] words = new long[(int) filter.sizing().blockCount() * CountingBlockLayout.BLOCK_WORDS];
        filter.copyCounterWords(0, words, words.length);
        long sum = 0;
        for (long word : words) {
            for (int c = 0; c < CountingBlockLayout.COUNTERS_PER_WORD; c++) {
                sum += (word >>> (c * CountingBlockLayout.COUNTER_BITS)) & CountingBlockLayout.MAX_COUNT;
            }
        }
        return sum;
    }

    /**
     * The calling thread and one other remove a key at the same moment: the other spins on the round number, so it
     * starts as soon as the caller announces the round, which then removes at once too.
     */
    private static final class RemoveRace {

        private volatile LocalCountingFilter filter;
        private volatile long key;
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger finished = new AtomicInteger();
        private volatile boolean stopped;

        void removeTogether(LocalCountingFilter filter, long key) {
            this.filter = filter;
            this.key = key;
            int round = started.incrementAndGet();
            filter.remove(key);
            while (finished.get() < round) {
                Thread.onSpinWait();
            }
        }

        void removeInEveryRound() {
            int done = 0;
            while (!stopped) {
                if (started.get() > done) {
                    filter.remove(key);
                    finished.set(++done);
                }
                else {
                    Thread.onSpinWait();
                }
            }
        }

        void stop() {
            stopped = true;
        }
    }
}
