package io.bloomguard.preload;

import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads one filter's key sources for a preload or a rebuild: each inside the read scope, in batches, checking each
 * key type once, counting the null keys it skips, and logging progress every few seconds. What a source throws comes
 * out as a {@link KeySourceFailedException} naming it.
 *
 * <p>Usage: {@code new KeySourceFeed("users", sources, scope).feed(keysRead).feed(filter::putAll)}
 */
final class KeySourceFeed {

    /** The preload's log: where users set its level, whichever class speaks. */
    private static final Log logger = LogFactory.getLog(FilterPreloader.class);

    /** Keys added per batch. */
    static final int BATCH_SIZE = 10_000;

    private static final long PROGRESS_INTERVAL_NANOS = Duration.ofSeconds(5).toNanos();

    private final String filter;
    private final List<BloomKeySource> sources;
    private final KeyReadScope scope;

    KeySourceFeed(String filter, List<BloomKeySource> sources, KeyReadScope scope) {
        this.filter = filter;
        this.sources = List.copyOf(sources);
        this.scope = scope;
    }

    /** Keys per second, for the log. */
    static long rate(long keys, long nanos) {
        return nanos <= 0 ? keys : Math.round(keys * 1e9 / nanos);
    }

    /**
     * Every key of a filter's sources, each read inside the read scope and handed on in batches, with progress
     * logged. Each call reads the sources afresh (a shared filter calls it again for every rebuild);
     * {@code keysRead} holds how many keys the last call read, also when it failed part way.
     */
    KeyFeed feed(AtomicLong keysRead) {
        return batches -> {
            Progress progress = new Progress(filter, System.nanoTime());
            logger.info("Preloading filter '" + filter + "' from " + sources);
            try {
                List<BloomKeySource> withNulls = new ArrayList<>();
                for (BloomKeySource source : sources) {
                    long nullsBefore = progress.nulls;
                    try {
                        scope.run(() -> {
                            read(source, progress, batches);
                            return null;
                        });
                    }
                    catch (KeySourceFailedException ex) {
                        throw ex;
                    }
                    catch (RuntimeException ex) { // the scope's own, such as no connection for its transaction
                        throw failed(source, ex);
                    }
                    if (progress.nulls > nullsBefore) {
                        withNulls.add(source);
                    }
                }
                if (progress.nulls > 0) {
                    logger.warn("Preload of filter '" + filter + "' skipped " + progress.nulls + " null keys (from "
                            + withNulls.stream().map(String::valueOf).collect(Collectors.joining(", ")) + "): their"
                            + " rows are not in the filter, and a guarded call looking one up may be rejected. A NULL"
                            + " column, or a concatenation with a NULL part, gives a null key: select a key that is"
                            + " never null, or leave out the rows no guarded call looks up");
                }
                return progress.keys;
            }
            finally {
                keysRead.set(progress.keys);
            }
        };
    }

    /**
     * Reads one source inside the read scope. What it throws is wrapped here, inside the scope: a transaction
     * template would otherwise hide a checked exception behind an UndeclaredThrowableException.
     */
    private static void read(BloomKeySource source, Progress progress, Consumer<List<Object>> batches) {
        try (Stream<?> keys = source.keys()) {
            load(source, keys.iterator(), progress, batches);
        }
        catch (KeySourceFailedException ex) {
            throw ex;
        }
        catch (Exception ex) { // checked ones too, thrown sneakily by a key source
            throw failed(source, ex);
        }
    }

    private static KeySourceFailedException failed(BloomKeySource source, Exception ex) {
        return new KeySourceFailedException(String.valueOf(source), "Key source " + source + " failed: " + ex, ex);
    }

    private static void load(BloomKeySource source, Iterator<?> keys, Progress progress,
            Consumer<List<Object>> batches) {
        List<Object> batch = new ArrayList<>(BATCH_SIZE);
        Class<?> lastType = null;
        Set<Class<?>> supportedTypes = new HashSet<>();
        while (keys.hasNext()) {
            Object key = keys.next();
            if (key == null) {
                progress.nulls++; // reported after the load: a null has no place in the filter
                continue;
            }
            // Checked here, once per type, so that the error names this source and says where to convert.
            Class<?> type = key.getClass();
            if (type != lastType) {
                if (!supportedTypes.contains(type)) {
                    checkSupported(source, key);
                    supportedTypes.add(type);
                }
                lastType = type;
            }
            // Counted as read, not as handed on: a source that fails part way says how far it got.
            progress.keys++;
            batch.add(key);
            if (batch.size() == BATCH_SIZE) {
                batches.accept(batch);
                batch.clear();
                progress.batchDone();
            }
        }
        if (!batch.isEmpty()) {
            batches.accept(batch);
        }
    }

    /** Refuses a key the filter cannot hash, as the canonicalizer would, with a message for a key source. */
    private static void checkSupported(BloomKeySource source, Object key) {
        try {
            KeyCanonicalizer.hash(key, 0);
        }
        catch (IllegalArgumentException ex) {
            // Not chained: the canonicalizer's message is for a guarded method's key expression.
            String where = (source instanceof SqlKeySource)
                    ? "Convert it in preload.sql, e.g. CAST(column AS VARCHAR)"
                    : "Convert it in the key source's stream (a .map(...) step) or in its query";
            throw new KeySourceFailedException(String.valueOf(source), "Key source " + source + " yielded a key of"
                    + " type " + key.getClass().getTypeName() + ", which a Bloom filter cannot hold: a key is a whole"
                    + " number, a String, a UUID or an enum. " + where + ", to the form the guarded methods' key"
                    + " takes");
        }
    }

    private static final class Progress {

        private final String filter;
        private final long start;
        /** Keys read so far. */
        private long keys;
        /** Null keys read and skipped so far. */
        private long nulls;
        private long lastLog;

        Progress(String filter, long start) {
            this.filter = filter;
            this.start = start;
            this.lastLog = start;
        }

        /** Logs progress every few seconds (looked at once per batch, not per key). */
        void batchDone() {
            long now = System.nanoTime();
            if (now - lastLog >= PROGRESS_INTERVAL_NANOS) {
                lastLog = now;
                logger.info("Preloading filter '" + filter + "': " + keys + " keys so far ("
                        + rate(keys, now - start) + " keys/s)");
            }
        }

    }
}
