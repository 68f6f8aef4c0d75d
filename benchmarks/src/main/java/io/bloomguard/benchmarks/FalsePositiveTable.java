package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;

import java.util.SplittableRandom;

/**
 * Prints the false-positive table of docs/design.md ("Sizing and layout"): for each configured error rate, the
 * layout's bits per key and hash count (next to the classic formula's), and the false-positive rate measured at
 * n = 10⁶ keys over 10⁷ absent probes, with fixed seeds.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.bloomguard.benchmarks.FalsePositiveTable}
 */
public final class FalsePositiveTable {

    private FalsePositiveTable() {
    }

    public static void main(String[] args) {
        int n = 1_000_000;
        int probes = 10_000_000;
        System.out.println("| configured ε | m/n (bits per key) | classic m/n | k | measured at n = 10⁶ | measured / ε |");
        System.out.println("|---|---|---|---|---|---|");
        for (double errorRate : new double[] { 0.1, 0.01, 0.001, 0.0001 }) {
            FilterSizing sizing = FilterSizing.of(n, errorRate);
            LocalBloomFilter filter = LocalBloomFilter.create(sizing, 0x5eed5eed);
            SplittableRandom keys = new SplittableRandom(42);
            for (int i = 0; i < n; i++) {
                filter.put(keys.nextLong() | 1L); // present keys are odd
            }
            SplittableRandom absent = new SplittableRandom(7);
            long falsePositives = 0;
            for (int i = 0; i < probes; i++) {
                if (filter.mightContain(absent.nextLong() & ~1L)) { // absent keys are even
                    falsePositives++;
                }
            }
            double measured = (double) falsePositives / probes;
            double classic = -Math.log(errorRate) / (Math.log(2) * Math.log(2));
            System.out.printf("| %s | %.2f | %.2f | %d | %.5f%% | %.2f |%n", percent(errorRate), sizing.bitsPerKey(),
                    classic, sizing.hashCount(), measured * 100, measured / errorRate);
        }
    }

    private static String percent(double rate) {
        return (rate * 100) + "%";
    }
}
