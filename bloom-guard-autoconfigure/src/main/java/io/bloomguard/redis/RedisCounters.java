package io.bloomguard.redis;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;

/**
 * Whole-bitmap work on a counting filter's counters in Redis, one range of {@value #CHUNK_BYTES} bytes per script so
 * that no script holds Redis for long: merging what a loader uploaded into the generation being built
 * ({@code BITOP OR} would OR the counters' bits, not add them), and counting the counters above zero for the fill
 * ({@code BITCOUNT} counts bits).
 *
 * <p>Usage: {@code long merged = RedisCounters.merge(via, next, upload, bytes);}
 */
final class RedisCounters {

    /** Bytes per script: a few milliseconds of Redis's time each. */
    static final int CHUNK_BYTES = 1 << 20;

    private RedisCounters() {
    }

    /** Sends one command and waits for its reply. */
    @FunctionalInterface
    interface Caller {
        <T> T call(Function<RedisPort, CompletableFuture<T>> command);
    }

    /** {@link Caller} over {@link RedisCommands} with a timeout. */
    static Caller within(RedisCommands commands, Duration timeout) {
        return new Caller() {
            @Override
            public <T> T call(Function<RedisPort, CompletableFuture<T>> command) {
                return commands.call(command, timeout);
            }
        };
    }

    /**
     * Adds the counters of {@code upload} to those of {@code next}, saturating at 15, and deletes the upload.
     *
     * @param bytes the length of the shard's bitmap
     * @return bits set in the upload, found range by range as it was merged; -1 when {@code next} is gone
     */
    static long merge(Caller via, String next, String upload, long bytes) {
        long setBits = 0;
        for (long from = 0; from < bytes; from += CHUNK_BYTES) {
            List<String> args = List.of(Long.toString(from), Long.toString(Math.min(CHUNK_BYTES, bytes - from)));
            long merged = via.<Object>call(port -> port.eval(RedisCounterScripts.MERGE, List.of(next, upload), args))
                    instanceof Long count ? count : -1;
            if (merged < 0) {
                return -1;
            }
            setBits += merged;
        }
        via.call(port -> port.delete(upload));
        return setBits;
    }

    /**
     * The counters above zero in a counting bitmap.
     *
     * @param bytes the length of the bitmap
     * @return the count; -1 when the bitmap is gone
     */
    static long nonZero(Caller via, String bitmap, long bytes) {
        long nonZero = 0;
        for (long from = 0; from < bytes; from += CHUNK_BYTES) {
            List<String> args = List.of(Long.toString(from), Long.toString(Math.min(from + CHUNK_BYTES, bytes) - 1));
            long counted = via.<Object>call(port -> port.eval(RedisCounterScripts.COUNT_NON_ZERO, List.of(bitmap),
                    args)) instanceof Long count ? count : -1;
            if (counted < 0) {
                return -1;
            }
            nonZero += counted;
        }
        return nonZero;
    }
}
