package io.bloomguard.registry;

/**
 * A {@link NamedBloomFilter}'s answer for many keys at once ({@link NamedBloomFilter#checkAll}).
 *
 * @param result       {@link CheckResult#ABSENT} when at least one key is absent, {@link CheckResult#MIGHT_CONTAIN}
 *                     when none is, or why the filter did not decide (then for every key)
 * @param mightContain per key, in order: {@code false} only for a key the filter decided is absent ({@code true} for
 *                     every key of an undecided batch)
 *
 * @since 0.1.0
 */
public record BatchCheckResult(CheckResult result, boolean[] mightContain) {
}
