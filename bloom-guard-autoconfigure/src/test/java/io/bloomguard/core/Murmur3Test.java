package io.bloomguard.core;

import com.google.common.hash.HashCode;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Our Murmur3 must be Guava's murmur3_128 bit for bit: filters built by either must agree. */
class Murmur3Test {

    private static final int CASES = 20_000;

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, -1, 0x7fffffff, 0x80000000, 0x5eed5eed })
    void longsHashAsGuavaHashLong(int seed) {
        HashFunction guava = Hashing.murmur3_128(seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < CASES; i++) {
            long value = (i < 100) ? i - 50 : random.nextLong();
            assertSame(Murmur3.hashLong(value, seed), guava.hashLong(value), "long " + value);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1, 0x5eed5eed })
    void twoLongsHashAsGuavaPutLongTwice(int seed) {
        HashFunction guava = Hashing.murmur3_128(seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < CASES; i++) {
            long first = random.nextLong();
            long second = random.nextLong();
            assertSame(Murmur3.hashTwoLongs(first, second, seed),
                    guava.newHasher().putLong(first).putLong(second).hash(), first + "," + second);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1, 0x5eed5eed })
    void textHashesAsGuavaHashStringUtf8(int seed) {
        HashFunction guava = Hashing.murmur3_128(seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < CASES; i++) {
            String text = randomText(random, random.nextInt(80));
            assertSame(Murmur3.hashUtf8(text, seed), guava.hashString(text, StandardCharsets.UTF_8),
                    "text " + escape(text));
            // Guava's reference for strings is the bytes String.getBytes(UTF_8) gives, '?' for a lone surrogate.
            assertSame(Murmur3.hashUtf8(text, seed), guava.hashBytes(text.getBytes(StandardCharsets.UTF_8)),
                    "bytes of " + escape(text));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "a", "0123456789abcde", "0123456789abcdef", "0123456789abcdefg", "é", "€", "🙂",
            "\ud83d", "\ude42", "x\ud83dx", "abcdefghijklmno€", "abcdefghijklmnopé🙂" })
    void edgeCasesAtBlockBoundariesAndSurrogates(String text) {
        assertSame(Murmur3.hashUtf8(text, 7), Hashing.murmur3_128(7).hashString(text, StandardCharsets.UTF_8),
                escape(text));
    }

    /**
     * ASCII strings take their own path: every length across several blocks, every ASCII char, and the same
     * strings with one non-ASCII char (Latin-1 or not) at each position, which must leave that path.
     */
    @ParameterizedTest
    @ValueSource(ints = { 0, -1, 0x5eed5eed })
    void asciiTextAndTextThatLeavesAsciiAtAnyPosition(int seed) {
        HashFunction guava = Hashing.murmur3_128(seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int length = 0; length <= 70; length++) {
            char[] chars = new char[length];
            for (int i = 0; i < length; i++) {
                chars[i] = (char) random.nextInt(0x80);
            }
            String ascii = new String(chars);
            assertSame(Murmur3.hashUtf8(ascii, seed), guava.hashString(ascii, StandardCharsets.UTF_8), escape(ascii));
            for (int at = 0; at < length; at++) {
                for (char other : new char[] { '\u0080', 'é', '\u00ff', '\u0100', '€', '\ud83d' }) {
                    char[] mixed = chars.clone();
                    mixed[at] = other;
                    String text = new String(mixed);
                    assertSame(Murmur3.hashUtf8(text, seed), guava.hashString(text, StandardCharsets.UTF_8), escape(text));
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "user:42", "0123456789abcdef", "0123456789abcdef0123", "ünïcödé text", "🙂🙂" })
    void anyCharSequenceHashesAsTheStringItSpells(String text) {
        assertSame(Murmur3.hashUtf8(new StringBuilder(text), 11), Hashing.murmur3_128(11).hashString(text, StandardCharsets.UTF_8),
                escape(text));
    }

    private static void assertSame(Hash128 ours, HashCode guava, String what) {
        ByteBuffer bytes = ByteBuffer.wrap(guava.asBytes()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(new Hash128(ours.h1(), ours.h2())).as(what).isEqualTo(new Hash128(bytes.getLong(), bytes.getLong()));
    }

    /** ASCII mostly, with 2-, 3- and 4-byte characters and lone surrogates mixed in. */
    private static String randomText(SplittableRandom random, int length) {
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            int kind = random.nextInt(20);
            if (kind < 14) {
                text.append((char) random.nextInt(0x20, 0x7f));
            }
            else if (kind < 16) {
                text.append((char) random.nextInt(0x80, 0x800));
            }
            else if (kind < 18) {
                text.append((char) random.nextInt(0x800, 0xd800));
            }
            else if (kind < 19) {
                text.appendCodePoint(random.nextInt(0x10000, 0x110000));
            }
            else {
                text.append((char) random.nextInt(0xd800, 0xe000));
            }
        }
        return text.toString();
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder();
        text.chars().forEach(c -> out.append(c < 0x80 ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        return out.toString();
    }
}
