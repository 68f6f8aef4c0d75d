package io.bloomguard.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A test's "database": the ids of the rows committed so far, numbered from 0, which a key source reads
 * ({@code RecordingKeyFeed.reading(rows::now)}), and new rows whose keys are put as {@code @BloomPut} writes put them.
 */
final class CommittedRows {

    private final Set<Long> rows = ConcurrentHashMap.newKeySet();

    /** The rows committed so far. */
    List<Long> now() {
        return List.copyOf(rows);
    }

    int size() {
        return rows.size();
    }

    /** Commits {@code count} rows without putting their keys: what the key source will find. */
    void commit(int count) {
        long first = rows.size();
        for (long id = first; id < first + count; id++) {
            rows.add(id);
        }
    }

    /**
     * Commits {@code count} rows and puts their keys with {@code putAll}, {@code batch} at a time.
     *
     * @return the new rows
     */
    List<Long> putNew(Consumer<List<Long>> putAll, int count, int batch) {
        long first = rows.size();
        List<Long> added = new ArrayList<>(count);
        for (long from = first; from < first + count; from += batch) {
            List<Long> keys = new ArrayList<>(batch);
            for (long id = from; id < Math.min(first + count, from + batch); id++) {
                rows.add(id);
                keys.add(id);
            }
            putAll.accept(keys);
            added.addAll(keys);
        }
        return added;
    }
}
