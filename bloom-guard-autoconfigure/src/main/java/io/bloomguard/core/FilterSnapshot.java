package io.bloomguard.core;

import java.util.Arrays;

/**
 * A filter's bits and everything needed to read them: what one backend exports and another imports. Bit
 * {@code b} is bit {@code b % 64} (least significant first) of {@code words[b / 64]}, as
 * {@link BlockedBloomLayout} numbers them.
 *
 * <p>Usage: {@code RedisBloomFilter shared = ...; shared.importSnapshot(local.exportSnapshot());}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param layoutVersion {@link BlockedBloomLayout#VERSION} the bits were written with
 * @param sizing        size the bits were written with
 * @param seed          hash seed the bits were written with
 * @param words         the bits, {@code sizing.bitSize() / 64} words
 * @hidden
 */
public record FilterSnapshot(int layoutVersion, FilterSizing sizing, int seed, long[] words) {

    public FilterSnapshot {
        if (layoutVersion != BlockedBloomLayout.VERSION) {
            throw new IllegalArgumentException("snapshot has layout version " + layoutVersion + "; this version reads "
                    + BlockedBloomLayout.VERSION);
        }
        if ((long) words.length * 64 != sizing.bitSize()) {
            throw new IllegalArgumentException("snapshot has " + words.length + " words; " + sizing + " needs "
                    + sizing.bitSize() / 64);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FilterSnapshot that && layoutVersion == that.layoutVersion
                && sizing.equals(that.sizing) && seed == that.seed && Arrays.equals(words, that.words);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * sizing.hashCode() + seed) + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "FilterSnapshot[v" + layoutVersion + ", " + sizing + ", seed=" + seed + "]";
    }
}
