package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import org.jspecify.annotations.Nullable;

/**
 * What a build read its key source into in the JVM, for upload: bits or counters as 64-bit words.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param sizing     the size they were built for
 * @param words      copies them out, a chunk at a time
 * @param keys       keys read from the source
 * @param outgrownTo for a filter that grows by layers, the larger layer 0 the keys call for; {@code null} when none
 * @hidden
 */
public record LocalWords(FilterSizing sizing, Copier words, long keys, @Nullable FilterSizing outgrownTo) {

    /** Copies {@code count} words of built bits, from word {@code fromWord} on, into the start of {@code into}. */
    @FunctionalInterface
    public interface Copier {
        void copy(int fromWord, long[] into, int count);
    }
}
