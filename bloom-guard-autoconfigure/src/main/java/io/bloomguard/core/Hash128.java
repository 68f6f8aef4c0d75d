package io.bloomguard.core;

/**
 * The two 64-bit halves of a Murmur3 x64 128-bit hash, in Guava's order ({@code h1} is
 * {@code HashCode.asLong()}).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param h1 first half
 * @param h2 second half
 * @hidden
 */
public record Hash128(long h1, long h2) {
}
