package io.bloomguard.benchmarks;

import java.util.Locale;

/**
 * Prints, for each {@code n}, key type and implementation, the filter's bytes per key and its false-positive
 * rate measured over absent keys once {@code n} keys are in. Complements {@link LocalFilterBenchmark}, which
 * measures time only.
 *
 * <p>Run: {@code java -Xmx8g -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.FilterFootprint
 * [absentKeys [n ...]]} (defaults: 10^7 absent keys; n = 10^6 and 5·10^7).
 */
public final class FilterFootprint {

    private FilterFootprint() {
    }

    public static void main(String[] args) {
        long absent = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        long[] sizes = args.length > 1 ? new long[args.length - 1] : new long[] {1_000_000L, 50_000_000L};
        for (int i = 1; i < args.length; i++) {
            sizes[i - 1] = Long.parseLong(args[i]);
        }
        double fpp = LocalFilterBenchmark.FPP;
        System.out.printf(Locale.ROOT, "ε = %s, FPP measured over %,d absent keys%n", fpp, absent);
        System.out.printf(Locale.ROOT, "%-10s %-7s %-20s %14s %10s %10s %9s%n",
                "n", "keys", "impl", "bytes", "bytes/key", "FPP", "fill s");
        for (long n : sizes) {
            for (BenchmarkKeys keys : BenchmarkKeys.values()) {
                for (FilterImpl impl : FilterImpl.values()) {
                    long start = System.nanoTime();
                    FilterUnderTest filter = FilterUnderTest.filled(impl, keys, n, fpp);
                    double fillSeconds = (System.nanoTime() - start) / 1e9;
                    checkNoFalseNegatives(filter, keys, n);
                    long falsePositives = 0;
                    for (long i = 0; i < absent; i++) {
                        if (filter.mightContain(keys.absent(i))) {
                            falsePositives++;
                        }
                    }
                    long bytes = filter.byteSize();
                    System.out.printf(Locale.ROOT, "%-10d %-7s %-20s %,14d %10.3f %10.5f %9.1f%n",
                            n, keys, impl, bytes, (double) bytes / n, (double) falsePositives / absent, fillSeconds);
                }
            }
        }
    }

    private static void checkNoFalseNegatives(FilterUnderTest filter, BenchmarkKeys keys, long n) {
        long stride = Math.max(1, n / 1_000_000);
        for (long i = 0; i < n; i += stride) {
            if (!filter.mightContain(keys.present(i))) {
                throw new IllegalStateException("false negative for key " + keys.present(i));
            }
        }
    }
}
