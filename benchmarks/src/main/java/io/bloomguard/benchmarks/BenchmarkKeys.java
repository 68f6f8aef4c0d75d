package io.bloomguard.benchmarks;

import java.util.SplittableRandom;

/**
 * Deterministic keys for the benchmarks, generated from an index so that 5·10^7 of them never have to be
 * held in memory at once.
 *
 * <p>Key {@code i} is present (put into the filter) for {@code i < n}; absent keys come from a disjoint
 * sequence. Long keys are a bijective scramble of {@code 2i} (present) or {@code 2i + 1} (absent), so they
 * are neither sequential nor ever equal across the two sets; String keys are {@code "user:"} plus that value
 * in base 36, which is text rather than a decimal number and so takes the general UTF-8 path of
 * {@code KeyCanonicalizer}, not its numeric fast path.
 */
public enum BenchmarkKeys {

    LONG {
        @Override
        Object present(long i) {
            return presentLong(i);
        }

        @Override
        Object absent(long i) {
            return absentLong(i);
        }
    },

    STRING {
        @Override
        Object present(long i) {
            return text(presentLong(i));
        }

        @Override
        Object absent(long i) {
            return text(absentLong(i));
        }
    },
    ;

    private static final long SALT = new SplittableRandom(0x5EED_B100L).nextLong();

    /** The {@code i}-th key that is put into the filter. */
    abstract Object present(long i);

    /** The {@code i}-th key that is never put into the filter. */
    abstract Object absent(long i);

    /**
     * {@code count} keys, half of them present (picked at random among the first {@code n}) and half absent,
     * in a random order; the same seed gives the same array. The order is drawn before the keys are made, so
     * the key objects lie in memory in the order they are probed, as a key just read from a request would be
     * in cache: the benchmark measures the filter, not a cache miss on the key object.
     */
    Object[] probes(long n, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        boolean[] isPresent = new boolean[count];
        for (int i = 0; i < count; i += 2) {
            isPresent[i] = true;
        }
        for (int i = count - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            boolean swap = isPresent[i];
            isPresent[i] = isPresent[j];
            isPresent[j] = swap;
        }
        Object[] probes = new Object[count];
        for (int i = 0; i < count; i++) {
            probes[i] = isPresent[i] ? present(random.nextLong(n)) : absent(random.nextLong(Long.MAX_VALUE / 2));
        }
        return probes;
    }

    private static long presentLong(long i) {
        return scramble(2 * i);
    }

    private static long absentLong(long i) {
        return scramble(2 * i + 1);
    }

    private static String text(long value) {
        return "user:" + Long.toUnsignedString(value, 36);
    }

    /** Murmur3's 64-bit finalizer: a bijection, so distinct indexes give distinct keys. */
    private static long scramble(long x) {
        x += SALT;
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }
}
