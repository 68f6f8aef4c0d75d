package io.bloomguard.redis.kind.counting;

import io.bloomguard.redis.kind.RedisCaller;

import java.util.ArrayList;
import java.util.List;

/**
 * Whole-bitmap work on a counting filter's counters in Redis, a range at a time so that no script holds Redis for
 * long: merging what a loader uploaded into the generation being built ({@code BITOP OR} would OR the counters' bits,
 * not add them), and counting the counters above zero for the fill ({@code BITCOUNT} counts bits).
 *
 * <p>Usage: {@code long merged = Counters.merge(via, next, upload, bytes);}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class Counters {

    /** Bytes per merge script: about 3 ms of Redis's time each (measured 50 ms a MiB). */
    static final int CHUNK_BYTES = 1 << 16;

    /** Bytes per counting script: about 4 ms of Redis's time each (measured 8 ms per 64 KiB). */
    static final int COUNT_BYTES = 1 << 15;

    /** Bytes of a shard the fill is counted in: all of a smaller shard, else windows spread evenly over it. */
    public static final int SAMPLE_BYTES = 1 << 18;

    /** Bytes of one window of the sample: 16 blocks of counters. */
    private static final int WINDOW_BYTES = 1 << 12;

    private Counters() {
    }

    /**
     * Adds the counters of {@code upload} to those of {@code next}, saturating at 15, and deletes the upload.
     *
     * @param bytes the length of the shard's bitmap
     * @return bits set in the upload, found range by range as it was merged; -1 when {@code next} is gone
     */
    public static long merge(RedisCaller via, String next, String upload, long bytes) {
        long setBits = 0;
        for (long from = 0; from < bytes; from += CHUNK_BYTES) {
            List<String> args = List.of(Long.toString(from), Long.toString(Math.min(CHUNK_BYTES, bytes - from)));
            long merged = via.<Object>call(port -> port.eval(CounterScripts.MERGE, List.of(next, upload), args))
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
     * The counters above zero in a counting bitmap: counted in a shard of up to {@value #SAMPLE_BYTES} bytes, and
     * estimated in a larger one from {@value #SAMPLE_BYTES} bytes in windows spread evenly over it, so that a read of
     * the fill costs Redis a bounded 30 ms or so, in steps of 4, however large the filter is. Keys are hashed to blocks uniformly, so
     * the sample's share of counters above zero is the whole bitmap's within about 0.3% (the spread of 1024 blocks'
     * fills at the expected size), and the keys estimated from it within about 0.5%.
     *
     * @param bytes the length of the bitmap
     * @return the count or estimate; -1 when the bitmap is gone
     */
    public static long nonZero(RedisCaller via, String bitmap, long bytes) {
        List<String> ranges = new ArrayList<>();
        long sampled;
        if (bytes <= SAMPLE_BYTES) {
            for (long from = 0; from < bytes; from += COUNT_BYTES) {
                ranges.add(Long.toString(from));
                ranges.add(Long.toString(Math.min(from + COUNT_BYTES, bytes) - 1));
            }
            sampled = bytes;
        }
        else {
            int windows = SAMPLE_BYTES / WINDOW_BYTES;
            long stride = bytes / windows / WINDOW_BYTES * WINDOW_BYTES; // windows start on block boundaries
            for (int i = 0; i < windows; i++) {
                ranges.add(Long.toString(i * stride));
                ranges.add(Long.toString(i * stride + WINDOW_BYTES - 1));
            }
            sampled = SAMPLE_BYTES;
        }
        long nonZero = 0;
        // COUNT_BYTES a call: one range of a small shard, or that many windows' worth of a large one.
        int argsPerCall = 2 * ((bytes <= SAMPLE_BYTES) ? 1 : COUNT_BYTES / WINDOW_BYTES);
        for (int at = 0; at < ranges.size(); at += argsPerCall) {
            List<String> args = List.copyOf(ranges.subList(at, Math.min(at + argsPerCall, ranges.size())));
            long counted = via.<Object>call(port -> port.eval(CounterScripts.COUNT_NON_ZERO, List.of(bitmap),
                    args)) instanceof Long count ? count : -1;
            if (counted < 0) {
                return -1;
            }
            nonZero += counted;
        }
        return (sampled == bytes) ? nonZero : Math.round((double) nonZero * bytes / sampled);
    }
}
