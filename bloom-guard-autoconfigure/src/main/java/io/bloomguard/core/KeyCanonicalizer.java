package io.bloomguard.core;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;

/**
 * Turns a key into the bytes a filter hashes, so that equal keys of different Java types are one key.
 *
 * <ul>
 * <li>Integral numbers ({@code Long}, {@code Integer}, {@code Short}, {@code Byte}, a {@code BigInteger} or
 * integral {@code BigDecimal} within {@code long} range) and strings in the canonical decimal form of a
 * {@code long} ({@code "42"}, {@code "-7"}; not {@code "042"}, {@code "+7"} or {@code "-0"}) hash as one
 * 8-byte value: {@code 42L}, {@code 42} and {@code "42"} are the same key.</li>
 * <li>A {@code UUID}, and a string that is a UUID in upper, lower or mixed case, hash as its 16 bytes.</li>
 * <li>An enum hashes as its name; a {@code Character} as a one-character string.</li>
 * <li>Any other text hashes as its UTF-8 bytes.</li>
 * </ul>
 *
 * Numbers of more than {@value #MAX_NUMBER_DIGITS} digits are refused too: no record has such a key, and their
 * text ({@code new BigDecimal("1E+100000000")} is 12 characters to send and a hundred million digits to write out)
 * would cost seconds of CPU or gigabytes of memory per check.
 *
 * <p>Other types are refused: a key expression (or a conversion in the caller) must turn them into one of
 * these. {@code KeyCanonicalizerTest} pins the encoding with golden vectors, because changing it would make
 * every stored filter miss its keys.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class KeyCanonicalizer {

    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    /** Most digits of a number key. */
    static final int MAX_NUMBER_DIGITS = 100;

    /** The smallest whole number with more than {@link #MAX_NUMBER_DIGITS} digits. */
    private static final BigInteger TOO_LONG = BigInteger.TEN.pow(MAX_NUMBER_DIGITS);

    private KeyCanonicalizer() {
    }

    /**
     * Hashes a key with a filter's seed.
     *
     * @throws IllegalArgumentException for a {@code null} key or a type with no canonical form
     */
    public static Hash128 hash(Object key, int seed) {
        // Long and String keys are nearly all keys; this method stays small enough to be inlined into a
        // filter's check, and the rarer types are looked up in a call of their own.
        if (key instanceof Long l) {
            return Murmur3.hashLong(l, seed);
        }
        if (key instanceof String s) {
            return hashText(s, seed);
        }
        return hashOther(key, seed);
    }

    private static Hash128 hashOther(Object key, int seed) {
        if (key instanceof Integer i) {
            return Murmur3.hashLong(i, seed);
        }
        if (key instanceof UUID u) {
            return Murmur3.hashTwoLongs(u.getMostSignificantBits(), u.getLeastSignificantBits(), seed);
        }
        if (key instanceof Short || key instanceof Byte) {
            return Murmur3.hashLong(((Number) key).longValue(), seed);
        }
        if (key instanceof CharSequence cs) {
            return hashText(cs, seed);
        }
        if (key instanceof Enum<?> e) {
            return hashText(e.name(), seed);
        }
        if (key instanceof Character c) {
            return hashText(String.valueOf(c.charValue()), seed);
        }
        if (key instanceof BigInteger b) {
            return hashBigInteger(b, seed);
        }
        if (key instanceof BigDecimal d) {
            return hashBigDecimal(d, seed);
        }
        throw unsupported(key);
    }

    /**
     * A key as text, for a filter the server hashes itself ({@code BF.*}): one text per key, as {@link #hash} makes
     * one hash per key. Whole numbers in decimal ({@code 42L}, {@code 42} and {@code "42"} are {@code "42"}), a UUID
     * in lower case, an enum by name, other text as it is: what another program checks with {@code BF.EXISTS}.
     *
     * @throws IllegalArgumentException for a {@code null} key or a type with no canonical form
     */
    public static String canonicalText(Object key) {
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
            return Long.toString(((Number) key).longValue());
        }
        if (key instanceof UUID u) {
            return u.toString();
        }
        if (key instanceof CharSequence cs) {
            String text = cs.toString();
            return (text.length() == 36 && isUuid(text)) ? text.toLowerCase(java.util.Locale.ROOT) : text;
        }
        if (key instanceof Enum<?> e) {
            return e.name();
        }
        if (key instanceof Character c) {
            return String.valueOf(c.charValue());
        }
        if (key instanceof BigInteger b) {
            hashBigInteger(b, 0); // the same refusal of numbers too long
            return b.toString();
        }
        if (key instanceof BigDecimal d) {
            hashBigDecimal(d, 0);
            BigDecimal stripped = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
            return (stripped.scale() <= 0) ? stripped.toBigIntegerExact().toString() : stripped.toPlainString();
        }
        throw unsupported(key);
    }

    /**
     * Whether values of a declared type always have a canonical form. {@code Object}, {@code Number},
     * {@code Comparable} and {@code Serializable} answer {@code false}: they may hold anything, and are
     * checked per key instead.
     */
    public static boolean isSupportedType(Class<?> type) {
        Class<?> t = type.isPrimitive() ? boxed(type) : type;
        return t == Long.class || t == Integer.class || t == Short.class || t == Byte.class
                || t == Character.class || CharSequence.class.isAssignableFrom(t) || t == UUID.class
                || t.isEnum() || t == BigInteger.class || t == BigDecimal.class;
    }

    /** Whether a declared type can hold a supported key, so that the check has to wait for the value. */
    public static boolean mayHoldSupportedType(Class<?> type) {
        return type == Object.class || type == Number.class || type == Comparable.class
                || type == java.io.Serializable.class || type == Enum.class;
    }

    private static Hash128 hashText(CharSequence text, int seed) {
        int length = text.length();
        if (length == 0) {
            return Murmur3.hashUtf8(text, seed);
        }
        // Only text starting with a digit or '-' can be a number: most text keys ("user:42", a name) skip
        // the number test after one comparison.
        if (text.charAt(0) <= '9' && length <= 20 && isCanonicalLong(text)) {
            return Murmur3.hashLong(Long.parseLong(text, 0, length, 10), seed);
        }
        if (length == 36 && isUuid(text)) {
            long msb = parseHex(text, 0, 8) << 32 | parseHex(text, 9, 13) << 16 | parseHex(text, 14, 18);
            long lsb = parseHex(text, 19, 23) << 48 | parseHex(text, 24, 36);
            return Murmur3.hashTwoLongs(msb, lsb, seed);
        }
        return Murmur3.hashUtf8(text, seed);
    }

    private static final String LONG_MAX_DIGITS = "9223372036854775807";
    private static final String LONG_MIN_DIGITS = "9223372036854775808";

    /** Whether text is what {@link Long#toString(long)} prints for some long: no '+', no leading zero, no "-0". */
    static boolean isCanonicalLong(CharSequence text) {
        int length = text.length();
        boolean negative = text.charAt(0) == '-';
        int start = negative ? 1 : 0;
        int digits = length - start;
        if (digits == 0 || digits > 19) {
            return false;
        }
        if (text.charAt(start) == '0' && (digits > 1 || negative)) {
            return false;
        }
        for (int i = start; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        if (digits < 19) {
            return true;
        }
        String limit = negative ? LONG_MIN_DIGITS : LONG_MAX_DIGITS;
        for (int i = 0; i < 19; i++) {
            int diff = text.charAt(start + i) - limit.charAt(i);
            if (diff != 0) {
                return diff < 0;
            }
        }
        return true;
    }

    private static boolean isUuid(CharSequence text) {
        for (int i = 0; i < 36; i++) {
            char c = text.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    return false;
                }
            } else if (Character.digit(c, 16) < 0 || c > 'f') {
                return false;
            }
        }
        return true;
    }

    private static long parseHex(CharSequence text, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            value = value << 4 | Character.digit(text.charAt(i), 16);
        }
        return value;
    }

    private static Hash128 hashBigInteger(BigInteger value, int seed) {
        if (value.abs().compareTo(TOO_LONG) >= 0) { // compares bit lengths first: cheap for any size
            throw tooLong(value.bitLength() + "-bit BigInteger");
        }
        if (value.compareTo(LONG_MIN) >= 0 && value.compareTo(LONG_MAX) <= 0) {
            return Murmur3.hashLong(value.longValue(), seed);
        }
        return Murmur3.hashUtf8(value.toString(), seed);
    }

    private static Hash128 hashBigDecimal(BigDecimal value, int seed) {
        // Measured before anything is written out or stripped: digits and scale are cheap to read, the text is not.
        if (value.precision() > MAX_NUMBER_DIGITS * 10) {
            throw tooLong("BigDecimal of " + value.precision() + " significant digits");
        }
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        long digits = (stripped.scale() <= 0) ? (long) stripped.precision() - stripped.scale()
                : Math.max(stripped.precision(), (long) stripped.scale() + 1);
        if (digits > MAX_NUMBER_DIGITS) {
            throw tooLong("BigDecimal of " + digits + " digits written out");
        }
        if (stripped.scale() <= 0) {
            return hashBigInteger(stripped.toBigIntegerExact(), seed);
        }
        return Murmur3.hashUtf8(stripped.toPlainString(), seed);
    }

    private static Class<?> boxed(Class<?> primitive) {
        if (primitive == long.class) {
            return Long.class;
        }
        if (primitive == int.class) {
            return Integer.class;
        }
        if (primitive == short.class) {
            return Short.class;
        }
        if (primitive == byte.class) {
            return Byte.class;
        }
        if (primitive == char.class) {
            return Character.class;
        }
        return primitive; // boolean, float, double: not keys
    }

    private static IllegalArgumentException tooLong(String what) {
        return new IllegalArgumentException("A Bloom filter key must not be a number of more than " + MAX_NUMBER_DIGITS
                + " digits; got a " + what + ": no record has such a key. Use a whole number, a String, a UUID or"
                + " an enum, or a key expression that yields one");
    }

    private static IllegalArgumentException unsupported(Object key) {
        if (key == null) {
            return new IllegalArgumentException("A Bloom filter key must not be null");
        }
        return new IllegalArgumentException("Unsupported Bloom filter key type " + key.getClass().getName()
                + ": use a whole number, a String, a UUID or an enum, or a key expression that yields one");
    }
}
