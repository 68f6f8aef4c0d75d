package io.bloomguard.core;

/**
 * The two 64-bit halves of a Murmur3 x64 128-bit hash, in Guava's order ({@code h1} is
 * {@code HashCode.asLong()}).
 *
 * @param h1 first half
 * @param h2 second half
 */
public record Hash128(long h1, long h2) {
}
