package io.bloomguard.redis;

import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.redis.port.RedisUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of one filter whose near copies read in order: A saves a key (its row is in the key source from then
 * on) and B looks it up at once, key after key, while the test's faults strike at ten points of each sixth of the
 * walk. B must never answer "absent" for a key A added; a check that fails (Redis hung) is not an answer, the guard
 * lets it through. At the end B's copy is in step again and answers absent keys after a barrier.
 */
final class OrderedWalk implements AutoCloseable {

    private static final long ABSENT = 1L << 40;

    private final RedisBloomFilter saving;
    private final RedisBloomFilter looking;
    private final int keys;
    private final Set<Object> rows = ConcurrentHashMap.newKeySet();
    private final ExecutorService background = Executors.newSingleThreadExecutor();
    private final List<Future<?>> running = new ArrayList<>();
    private final AtomicBoolean restarted = new AtomicBoolean();
    /** The most layers the looking instance saw (a filter that grows by layers). */
    private int maxLayers;
    /** Keys whose rows were deleted and the keys removed (a counting filter's walk). */
    private final List<Long> removed = new ArrayList<>();

    OrderedWalk(RedisBloomFilter saving, RedisBloomFilter looking, int keys) {
        this.saving = saving;
        this.looking = looking;
        this.keys = keys;
        KeyFeed database = batches -> {
            List<Object> all = new ArrayList<>(rows);
            batches.accept(all);
            return all.size();
        };
        assertThat(saving.start(database)).isEqualTo(StartOutcome.LOADED_HERE);
        assertThat(looking.start(database)).isEqualTo(StartOutcome.ALREADY_LOADED);
    }

    /**
     * Walks {@code keys} keys; at step {@code i} of each tenth of each sixth of the walk, {@code faults.apply(i)} (a
     * value, ignored, or {@code null}).
     */
    void run(IntFunction<?> faults) throws Exception {
        awaitInStep();
        long barrierAnswers = looking.details().nearCopy().rejectedHere();
        int failed = 0;
        int sixth = Math.max(60, keys / 6);
        for (int i = 0; i < keys; i++) {
            long key = 1 + i * 7919L;
            rows.add(key); // the row commits once its key is in: the key source sees it from now on
            saving.put(key);
            try {
                assertThat(looking.mightContain(key)).as("key %d, the %dth added", key, i).isTrue();
                if (i % 10 == 0) {
                    looking.mightContain(ABSENT + i); // answered after a barrier in step, in Redis out of step
                }
            }
            catch (RedisUnavailableException hung) {
                failed++;
            }
            if (saving.counting() && i % 5 == 4) {
                long gone = 1 + (i - 2) * 7919L;
                rows.remove(gone); // the row is deleted, then its key removed, as @BloomRemove does after the commit
                if (saving.remove(gone)) {
                    removed.add(gone);
                }
            }
            if (i % 100 == 0) {
                maxLayers = Math.max(maxLayers, looking.layerCount());
            }
            if (i % sixth % (sixth / 10) == 0) {
                faults.apply(i % sixth / (sixth / 10));
            }
        }
        for (Future<?> each : running) {
            each.get();
        }
        // The hangs and the restart last a fraction of the walk: most checks are answers, which the rule holds for.
        assertThat(failed).as("checks that failed while Redis hung or restarted").isLessThan(keys / 2);
        awaitInStep();
        assertThat(looking.details().nearCopy().rejectedHere()).as("absent keys answered after a barrier")
                .isGreaterThan(barrierAnswers);
        for (Object row : rows) {
            assertThat(looking.mightContain(row)).as("row %s at the end", row).isTrue();
        }
        if (saving.counting()) {
            long stillIn = removed.stream().filter(looking::mightContain).count();
            // Removes made while the copy was out of step (a drop, a rebuild) stay in it until its next whole read;
            // the last stretch of the walk had none, so most removed keys are rejected again.
            assertThat(stillIn).as("of %d removed keys, let through by the copy", removed.size())
                    .isLessThan(removed.size() / 2);
        }
    }

    /** The most layers the looking instance saw during the walk. */
    int maxLayers() {
        return maxLayers;
    }

    /** Runs {@code fault} on a thread of its own (a command that hangs Redis); the walk waits for it at the end. */
    Object inBackground(Runnable fault) {
        running.add(background.submit(fault));
        return fault;
    }

    /** Rebuilds the filter from the key source, at its size. */
    Object rebuild() {
        return saving.rebuild();
    }

    /** Grows it: rebuilt for twice the rows, another size, other bitmaps to follow. */
    Object grow() {
        return saving.rebuild(Math.max(2L * rows.size(), 2 * saving.capacity()));
    }

    /** Runs {@code restart} the first time only. */
    Object restartOnce(Runnable restart) {
        if (restarted.compareAndSet(false, true)) {
            restart.run();
        }
        return restart;
    }

    private void awaitInStep() {
        await("the near copy of " + looking.name() + " in step").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> assertThat(looking.details().nearCopy().absentKeys())
                        .as("%s", looking.details().nearCopy()).isIn("barrier", "lease"));
    }

    @Override
    public void close() {
        background.shutdownNow();
    }
}
