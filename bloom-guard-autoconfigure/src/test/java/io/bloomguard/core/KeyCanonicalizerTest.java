package io.bloomguard.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyCanonicalizerTest {

    private static final int SEED = 0x5eed;

    enum Color { RED }

    @Test
    void integralNumbersAndTheirDecimalTextAreOneKey() {
        Hash128 expected = KeyCanonicalizer.hash(42L, SEED);
        assertThat(KeyCanonicalizer.hash(42, SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash((short) 42, SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash((byte) 42, SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash("42", SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash(new StringBuilder("42"), SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash(BigInteger.valueOf(42), SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash(new BigDecimal("42.00"), SEED)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(longs = { 0, 1, -1, 9, 10, -10, Long.MAX_VALUE, Long.MIN_VALUE, 1234567890123456789L })
    void everyLongEqualsItsToString(long value) {
        assertThat(KeyCanonicalizer.hash(Long.toString(value), SEED)).isEqualTo(KeyCanonicalizer.hash(value, SEED));
    }

    @ParameterizedTest
    @ValueSource(strings = { "007", "+7", "-0", "7 ", " 7", "9223372036854775808", "-9223372036854775809",
            "99999999999999999999", "1e3", "-", "0x10" })
    void nonCanonicalNumbersAreText(String text) {
        assertThat(KeyCanonicalizer.isCanonicalLong(text)).isFalse();
        assertThat(KeyCanonicalizer.hash(text, SEED)).isEqualTo(Murmur3.hashUtf8(text, SEED));
    }

    @Test
    void integersBeyondLongRangeMatchTheirText() {
        BigInteger big = BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE);
        assertThat(KeyCanonicalizer.hash(big, SEED)).isEqualTo(KeyCanonicalizer.hash(big.toString(), SEED));
    }

    /**
     * A short text that is a huge number: written out it would take seconds (1E+10000000 measured 10 s) or
     * gigabytes (1E-999999999), per check. Refused at once, as any key the filter cannot hold.
     */
    @ParameterizedTest
    @ValueSource(strings = { "1E+100000000", "1E-999999999", "1E+101", "1E-100" })
    @org.junit.jupiter.api.Timeout(5)
    void numbersOfMoreThanAHundredDigitsAreRefused(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.hash(new BigDecimal(text), SEED))
                .withMessageStartingWith("A Bloom filter key must not be a number of more than 100 digits");
    }

    @Test
    void numbersOfAHundredDigitsAreKeys() {
        BigInteger hundredDigits = BigInteger.TEN.pow(100).subtract(BigInteger.ONE);
        assertThat(KeyCanonicalizer.hash(hundredDigits, SEED)).isEqualTo(Murmur3.hashUtf8(hundredDigits.toString(), SEED));
        assertThat(KeyCanonicalizer.hash(new BigDecimal(hundredDigits), SEED))
                .isEqualTo(KeyCanonicalizer.hash(hundredDigits, SEED));
        assertThat(KeyCanonicalizer.hash(new BigDecimal("1E+99"), SEED))
                .isEqualTo(KeyCanonicalizer.hash(BigInteger.TEN.pow(99), SEED));
        BigDecimal smallFraction = new BigDecimal("1E-98"); // "0." and 98 digits
        assertThat(KeyCanonicalizer.hash(smallFraction, SEED))
                .isEqualTo(Murmur3.hashUtf8(smallFraction.toPlainString(), SEED));
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.hash(BigInteger.TEN.pow(100), SEED));
    }

    @Test
    void uuidIsOneKeyWhateverTheCaseOfItsText() {
        UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        Hash128 expected = KeyCanonicalizer.hash(uuid, SEED);
        assertThat(KeyCanonicalizer.hash("123e4567-e89b-12d3-a456-426614174000", SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash("123E4567-E89B-12D3-A456-426614174000", SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash("123e4567-E89B-12d3-A456-426614174000", SEED)).isEqualTo(expected);
        assertThat(KeyCanonicalizer.hash("123e4567-e89b-12d3-a456-42661417400g", SEED)).isNotEqualTo(expected);
    }

    @Test
    void enumIsItsName() {
        assertThat(KeyCanonicalizer.hash(Color.RED, SEED)).isEqualTo(KeyCanonicalizer.hash("RED", SEED));
    }

    @Test
    void differentKeysDiffer() {
        assertThat(KeyCanonicalizer.hash("42", SEED)).isNotEqualTo(KeyCanonicalizer.hash("042", SEED));
        assertThat(KeyCanonicalizer.hash(42L, SEED)).isNotEqualTo(KeyCanonicalizer.hash(43L, SEED));
        assertThat(KeyCanonicalizer.hash(42L, SEED)).isNotEqualTo(KeyCanonicalizer.hash(42L, SEED + 1));
    }

    @Test
    void unsupportedTypesAreRefusedWithAClearMessage() {
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.hash(1.5d, SEED))
                .withMessageContaining("java.lang.Double").withMessageContaining("key expression");
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.hash(new Object(), SEED))
                .withMessageContaining("java.lang.Object");
        assertThat(KeyCanonicalizer.isSupportedType(long.class)).isTrue();
        assertThat(KeyCanonicalizer.isSupportedType(String.class)).isTrue();
        assertThat(KeyCanonicalizer.isSupportedType(UUID.class)).isTrue();
        assertThat(KeyCanonicalizer.isSupportedType(Color.class)).isTrue();
        assertThat(KeyCanonicalizer.isSupportedType(double.class)).isFalse();
        assertThat(KeyCanonicalizer.isSupportedType(Object.class)).isFalse();
        assertThat(KeyCanonicalizer.mayHoldSupportedType(Object.class)).isTrue();
    }

    /**
     * Golden vectors: stored filters (snapshots, Redis bitmaps) depend on these exact values. If this test
     * fails, the change breaks every existing filter: bump {@link BlockedBloomLayout#VERSION} instead.
     */
    @Test
    void goldenVectors() {
        assertGolden(42L, 0xb6acc39989d27df8L, 0x24b917fb96f22f80L,
                365129, 365560, 365341, 365062, 365239, 365370, 365471);
        assertGolden("42", 0xb6acc39989d27df8L, 0x24b917fb96f22f80L,
                365129, 365560, 365341, 365062, 365239, 365370, 365471);
        assertGolden("-7", 0x90067640d7128708L, 0x58bd048d8f6d759fL,
                287921, 287906, 287772, 288009, 287911, 287767, 288039);
        assertGolden("007", 0xad06bfa96f460705L, 0xab2ad6a016273521L,
                345942, 345993, 345771, 345648, 345934, 346103, 345707);
        assertGolden("user:1", 0x54f09e266816c56eL, 0x649284f98cbc39a4L,
                169673, 169754, 169811, 169711, 169939, 169960, 169939);
        assertGolden("ünïcødé-🙂", 0x4aafad103f30d802L, 0x5b56894674c43d76L,
                149174, 149464, 149387, 149097, 149183, 149131, 149026);
        assertGolden(UUID.fromString("123e4567-e89b-12d3-a456-426614174000"), 0xeabc5a538c4618d7L,
                0x21ed794780aecc1bL, 469059, 469198, 469499, 469359, 469132, 469376, 469234);
        assertGolden("a-very-long-key-that-spans-more-than-one-block-of-sixteen-bytes", 0xb3cc4fee350f7f88L,
                0x4cedc984d55bb7e9L, 359577, 359457, 359668, 359665, 359899, 359575, 359601);
    }

    private static void assertGolden(Object key, long h1, long h2, long... bits) {
        Hash128 hash = KeyCanonicalizer.hash(key, 0);
        assertThat(hash).as("hash of %s", key).isEqualTo(new Hash128(h1, h2));
        assertThat(BlockedBloomLayout.bitIndexes(hash, 1000, 7)).as("bits of %s in 1000 blocks, k=7", key)
                .containsExactly(bits);
        assertThat(Arrays.stream(bits).allMatch(b -> b / 512 == bits[0] / 512)).as("one block").isTrue();
    }

    /**
     * The text a server-hashed filter ({@code BF.*}) gets: one text for the keys that are one key here, so a key put as
     * a Long is found when checked as a String, and the text another program adds with {@code BF.ADD}.
     */
    @Test
    void keysThatAreOneKeyHaveOneTextForTheServersFilter() {
        for (Object fortyTwo : new Object[] {42L, 42, (short) 42, (byte) 42, "42", BigInteger.valueOf(42),
                new BigDecimal("42.00"), new BigDecimal("4.2E+1")}) {
            assertThat(KeyCanonicalizer.canonicalText(fortyTwo)).as("%s (%s)", fortyTwo, fortyTwo.getClass()
                .getSimpleName()).isEqualTo("42");
        }
        UUID id = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
        assertThat(KeyCanonicalizer.canonicalText(id)).isEqualTo("0f8fad5b-d9cb-469f-a165-70867728950e");
        assertThat(KeyCanonicalizer.canonicalText("0F8FAD5B-D9CB-469F-A165-70867728950E"))
            .isEqualTo("0f8fad5b-d9cb-469f-a165-70867728950e");
        assertThat(KeyCanonicalizer.canonicalText(Color.RED)).isEqualTo("RED");
        assertThat(KeyCanonicalizer.canonicalText('x')).isEqualTo("x");
        assertThat(KeyCanonicalizer.canonicalText(new BigDecimal("1.50"))).isEqualTo("1.5");
        // Not canonical longs: other keys, as when hashed.
        assertThat(KeyCanonicalizer.canonicalText("042")).isEqualTo("042");
        assertThat(KeyCanonicalizer.canonicalText("user:42")).isEqualTo("user:42");
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.canonicalText(new Object()));
        assertThatIllegalArgumentException().isThrownBy(() -> KeyCanonicalizer.canonicalText(BigInteger.TEN.pow(200)));
    }
}
