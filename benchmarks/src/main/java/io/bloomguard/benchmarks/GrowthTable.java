package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.ScalableSizing;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.local.ScalableLocalFilter;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.GrowthPolicy;
import io.bloomguard.registry.NamedBloomFilter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Prints the growth table of docs/preload-and-lifecycle.md ("Growing past the expected size"): one filter per
 * {@code growth} policy, n = 10⁵ and ε = 1 %, filled with keys up to four times n; at each step the false-positive
 * rate measured over 10⁶ absent keys, and the filter's memory. The {@code rebuild} filter runs the real growth path (a
 * background rebuild from its key source, a list of the keys put so far); each step waits until it has settled.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.GrowthTable}
 */
public final class GrowthTable {

    private static final int N = 100_000;

    private static final double ERROR_RATE = 0.01;

    private static final int PROBES = 1_000_000;

    private GrowthTable() {
    }

    public static void main(String[] args) {
        List<Object> rows = new ArrayList<>();
        NamedBloomFilter none = filter(GrowthPolicy.NONE, new RebuildableLocalFilter(FilterSizing.of(N, ERROR_RATE),
                Duration.ZERO));
        NamedBloomFilter rebuild = filter(GrowthPolicy.REBUILD, new RebuildableLocalFilter(FilterSizing.of(N,
                ERROR_RATE), Duration.ZERO));
        rebuild.keySource(batches -> {
            List<Object> copy;
            synchronized (rows) {
                copy = List.copyOf(rows);
            }
            batches.accept(copy);
            return copy.size();
        });
        NamedBloomFilter scale = filter(GrowthPolicy.SCALE, new RebuildableLocalFilter(ScalableSizing.of(N,
                ERROR_RATE).layer(0), Duration.ZERO, ScalableLocalFilter::create));
        System.out.println("| keys put | none: FPP | none: bytes | rebuild: FPP | rebuild: bytes | scale: FPP"
                + " | scale: layers | scale: bytes |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        SplittableRandom keys = new SplittableRandom(42);
        for (double fill : new double[] { 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0 }) {
            while (size(rows) < fill * N) {
                long key = keys.nextLong() | 1L; // present keys are odd
                synchronized (rows) {
                    rows.add(key); // the row is committed, then its key put, as @BloomPut does
                }
                none.put(key);
                rebuild.put(key);
                scale.put(key);
            }
            while (rebuild.growing() || rebuild.approximateElementCount() >= 0.9 * rebuild.capacity()) {
                Thread.onSpinWait(); // a rebuild runs, or the next is about to start
            }
            int layers = ((ScalableLocalFilter) ((RebuildableLocalFilter) scale.backend()).live()).layerCount();
            System.out.printf(Locale.ROOT, "| %.1f n | %s | %s | %s | %s | %s | %d | %s |%n", fill, rate(none),
                    kib(none), rate(rebuild), kib(rebuild), rate(scale), layers, kib(scale));
        }
    }

    private static int size(List<Object> rows) {
        synchronized (rows) {
            return rows.size();
        }
    }

    private static NamedBloomFilter filter(GrowthPolicy growth, RebuildableLocalFilter backend) {
        FilterSpec spec = FilterSpec.builder(growth.name().toLowerCase(Locale.ROOT)).expectedSize(N)
                .errorRate(ERROR_RATE).growth(growth).build();
        NamedBloomFilter filter = new NamedBloomFilter(spec, backend, FilterState.LOADING);
        filter.finishLoading();
        return filter;
    }

    /** The share of 10⁶ absent keys (even numbers) the filter lets through, in percent. */
    private static String rate(NamedBloomFilter filter) {
        SplittableRandom absent = new SplittableRandom(7);
        long passed = 0;
        for (int i = 0; i < PROBES; i++) {
            passed += filter.mightContain(absent.nextLong() & ~1L) ? 1 : 0;
        }
        return String.format(Locale.ROOT, "%.2f%%", 100.0 * passed / PROBES);
    }

    private static String kib(NamedBloomFilter filter) {
        return String.format(Locale.ROOT, "%,d KiB", filter.byteSize() / 1024);
    }
}
