package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The keys of a write that were still {@code null} when the method returned, such as a column the database fills in
 * when the insert is flushed, at the commit: the whole key, or the elements of a collection of keys (each entity of a
 * {@code saveAll} under a {@code save} keyed on {@code #result.code}), by position, those known being put already.
 * {@link KeyedWrite} reads them again before the commit, and after it as a last resort.
 */
final class LateKeys {

    private final PutOperation put;
    private final Object[] args;
    private final @Nullable Object result;
    /** Positions of the elements still unknown; {@code null} when the whole key is. */
    private final @Nullable BitSet unknown;
    private final int elements;
    private boolean wholePut;

    private LateKeys(PutOperation put, Object[] args, @Nullable Object result, @Nullable BitSet unknown, int elements) {
        this.put = put;
        this.args = args;
        this.result = result;
        this.unknown = unknown;
        this.elements = elements;
    }

    /**
     * The keys still unknown of a write that returned {@code result}, whose key expression gave {@code evaluated}
     * then (the keys it put), or {@code null} if none is.
     */
    static @Nullable LateKeys of(PutOperation put, Object[] args, @Nullable Object result,
            PutOperation.Evaluated evaluated) {
        Object keysPut = evaluated.keys();
        if (keysPut == null) {
            // A key from a null result has nothing to key: the method wrote nothing it returned.
            boolean nothingWritten = put.key().usesResult() && result == null;
            return !nothingWritten && evaluated.nullKey() ? new LateKeys(put, args, result, null, 1) : null;
        }
        List<@Nullable Object> elements = elementsOf(keysPut);
        if (elements == null) {
            return null;
        }
        BitSet unknown = new BitSet(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) == null) {
                unknown.set(i);
            }
        }
        return unknown.isEmpty() ? null : new LateKeys(put, args, result, unknown, elements.size());
    }

    /** Whether {@code keys} is a collection or array of keys with an element still {@code null}. */
    static boolean anyNull(Object keys) {
        List<@Nullable Object> elements = elementsOf(keys);
        return elements != null && elements.contains(null);
    }

    /** Whether it is the whole key that is unknown, rather than elements of a collection of keys. */
    boolean whole() {
        return unknown == null;
    }

    /**
     * Puts the keys known by now.
     *
     * @return how many it put
     */
    int putKnown() {
        if (unknown == null) {
            wholePut = wholePut || put.putFromResult(args, result).keys() != null;
            return wholePut ? 1 : 0;
        }
        List<@Nullable Object> keys = elementsOf(put.keysOf(args, result));
        if (keys == null || keys.size() != elements) {
            return 0; // the result changed its size: which element is which is no longer known
        }
        List<Object> known = new ArrayList<>();
        for (int i = unknown.nextSetBit(0); i >= 0; i = unknown.nextSetBit(i + 1)) {
            Object key = keys.get(i);
            if (key != null) {
                known.add(key);
                unknown.clear(i);
            }
        }
        put.putKeys(known);
        return known.size();
    }

    /** Whether every key is in. */
    boolean complete() {
        return (unknown != null) ? unknown.isEmpty() : wholePut;
    }

    /**
     * Elements of a saved collection still without their key when nothing more will give it to them ({@code when}):
     * their rows may hold a key the filter lacks, so the filter stops rejecting until it holds every key again.
     */
    void reportElementsLost(String when) {
        if (unknown != null && !unknown.isEmpty()) {
            put.keyUnknown(unknown.cardinality() + " of its " + elements + " keys were still null " + when
                    + ", so they were never put (a column the database fills in, which the objects the key expression"
                    + " reads do not show)", "Key the @BloomPut on the saved entities themselves, or on a value known"
                    + " before the commit");
        }
    }

    /** The elements of a collection or array of keys, or {@code null} for one key. */
    private static @Nullable List<@Nullable Object> elementsOf(@Nullable Object keys) {
        List<@Nullable Object> elements = new ArrayList<>();
        if (keys instanceof Iterable<?> iterable) {
            iterable.forEach(elements::add);
        }
        else if (keys != null && keys.getClass().isArray()) {
            for (int i = 0, n = Array.getLength(keys); i < n; i++) {
                elements.add(Array.get(keys, i));
            }
        }
        else {
            return null;
        }
        return elements;
    }
}
