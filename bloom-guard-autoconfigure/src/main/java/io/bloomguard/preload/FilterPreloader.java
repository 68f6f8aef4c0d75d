package io.bloomguard.preload;

import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterHistory;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Fills every filter from its key sources, logging progress: local filters one after another, shared ones all at
 * once (each may wait out a rebuild grace before it reads its sources, and those waits overlap). A filter moves from
 * {@code LOADING} to {@code READY} when all its sources were read, or to {@code FAILED} (it then lets every
 * call through) when one of them threw. A filter with no key source is ready at once, empty: if methods are
 * guarded with it, that is almost certainly a mistake, and a warning names them.
 *
 * <p>Usage (what the auto-configuration runs at startup): {@code new FilterPreloader(registry, sources,
 * scope, guarded).preloadAll();}
 */
public final class FilterPreloader {

    private static final Log logger = LogFactory.getLog(FilterPreloader.class);

    /** Keys added per batch. */
    static final int BATCH_SIZE = 10_000;

    private static final long PROGRESS_INTERVAL_NANOS = Duration.ofSeconds(5).toNanos();

    private final BloomFilterRegistry registry;
    private final Map<String, List<BloomKeySource>> sourcesByFilter = new LinkedHashMap<>();
    private final KeyReadScope scope;
    private final Supplier<Map<String, Set<String>>> guardedMethods;
    private final Map<String, PreloadResult> results = new java.util.concurrent.ConcurrentHashMap<>();
    private final Executor startThreads;

    /**
     * A preloader that starts shared filters together on daemon platform threads of its own.
     *
     * @param guardedMethods filter name → the guarded methods using it, for the warning about empty filters
     * @throws UnknownKeySourceFilterException when a key source names a filter that is not configured
     */
    public FilterPreloader(BloomFilterRegistry registry, Collection<? extends BloomKeySource> sources,
            KeyReadScope scope, Supplier<Map<String, Set<String>>> guardedMethods) {
        this(registry, sources, scope, guardedMethods, daemonThreadPerStart());
    }

    /**
     * @param guardedMethods filter name → the guarded methods using it, for the warning about empty filters
     * @param startThreads   runs each shared filter's start but one on a thread of its own (the last runs on the
     *                       caller's), so their waits overlap: one thread per task, never a queue
     * @throws UnknownKeySourceFilterException when a key source names a filter that is not configured
     */
    public FilterPreloader(BloomFilterRegistry registry, Collection<? extends BloomKeySource> sources,
            KeyReadScope scope, Supplier<Map<String, Set<String>>> guardedMethods, Executor startThreads) {
        this.registry = registry;
        this.startThreads = startThreads;
        this.scope = scope;
        this.guardedMethods = guardedMethods;
        for (BloomKeySource source : sources) {
            if (registry.find(source.filter()).isEmpty()) {
                throw new UnknownKeySourceFilterException(String.valueOf(source), source.filter(),
                        registry.all().stream().map(NamedBloomFilter::name).toList());
            }
            if (registry.get(source.filter()).spec().putsOnly()) {
                throw new IllegalStateException("Key source " + source + " reads keys for filter '" + source.filter()
                        + "', which is declared filled by puts alone (bloom-guard.filters." + source.filter()
                        + ".puts-only: true): remove puts-only if the source yields every key, or the key source");
            }
            sourcesByFilter.computeIfAbsent(source.filter(), name -> new ArrayList<>()).add(source);
        }
    }

    /** Loads every filter that is {@code LOADING}; returns when all are done. */
    public void preloadAll() {
        Map<String, Set<String>> guarded = guardedMethods.get();
        List<Runnable> sharedStarts = new ArrayList<>();
        for (NamedBloomFilter filter : registry.all()) {
            if (filter.state() != FilterState.LOADING) {
                continue;
            }
            List<BloomKeySource> sources = sourcesByFilter.getOrDefault(filter.name(), List.of());
            if (filter.spec().putsOnly()) {
                logger.info("Filter '" + filter.name() + "' is filled by puts alone: it starts empty and is never"
                        + " rebuilt");
            }
            else if (sources.isEmpty() && !(filter.backend() instanceof SharedBloomFilter)) {
                // (A shared filter with no source here waits for an instance that has one, and says so.)
                Set<String> methods = guarded.getOrDefault(filter.name(), Set.of());
                if (!methods.isEmpty()) {
                    logger.warn("Filter '" + filter.name() + "' guards " + String.join(", ", methods)
                            + " but has no key source: it starts empty and rejects every key not added since."
                            + " Declare a BloomKeySource bean for it or set bloom-guard.filters." + filter.name()
                            + ".preload.sql");
                }
                else {
                    logger.info("Filter '" + filter.name() + "' has no key source and guards no method: ready, empty,"
                            + " for keys put from code");
                }
            }
            if (filter.backend() instanceof SharedBloomFilter shared) {
                sharedStarts.add(() -> startShared(filter, shared, sources));
            }
            else if (sources.isEmpty()) {
                filter.finishLoading();
            }
            else {
                preload(filter, sources);
            }
        }
        runTogether(sharedStarts);
    }

    /** Runs the starts of shared filters each on a thread of its own (the last on this one) and waits for all. */
    private void runTogether(List<Runnable> starts) {
        if (starts.size() <= 1) {
            starts.forEach(Runnable::run);
            return;
        }
        List<FutureTask<Void>> others = new ArrayList<>();
        for (int i = 0; i < starts.size() - 1; i++) {
            FutureTask<Void> task = new FutureTask<>(starts.get(i), null);
            startThreads.execute(task);
            others.add(task);
        }
        starts.get(starts.size() - 1).run();
        for (FutureTask<Void> task : others) {
            try {
                task.get();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while shared filters were starting", ex);
            }
            catch (ExecutionException ex) {
                // startShared handles what a start throws; what gets here is an Error (out of memory, say)
                if (ex.getCause() instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(ex.getCause());
            }
        }
    }

    /**
     * A shared filter is loaded once for all instances: this instance hands it a feed of its key sources, and the
     * filter decides whether to load here (then this blocks until done) or to follow another instance. The feed
     * is kept for rebuilds, so it reads the sources afresh on every call. The filter's own status says from then
     * on when it may be trusted.
     */
    private void startShared(NamedBloomFilter filter, SharedBloomFilter shared, List<BloomKeySource> sources) {
        AtomicLong lastCount = new AtomicLong();
        KeyFeed feed = keyFeed(filter.name(), sources, lastCount);
        long start = System.nanoTime();
        try {
            // A filter filled by puts alone is created empty by whichever instance comes first.
            SharedBloomFilter.StartOutcome outcome = (sources.isEmpty() && !filter.spec().putsOnly())
                    ? shared.follow() : shared.start(filter.sharedKeyFeed(feed));
            long elapsed = System.nanoTime() - start;
            switch (outcome) {
                case LOADED_HERE -> {
                    results.put(filter.name(), PreloadResult.completed(lastCount.get(), elapsed));
                    logger.info("Preloaded shared filter '" + filter.name() + "': " + keys(lastCount.get()) + " in "
                            + Duration.ofNanos(elapsed).toMillis() + " ms");
                }
                case ALREADY_LOADED -> logger.info("Shared filter '" + filter.name() + "' was already loaded; ready");
                default -> logger.info("Shared filter '" + filter.name() + "' started: " + outcome
                        + "; its calls pass through until it is ready");
            }
        }
        catch (Exception ex) { // checked ones too, thrown sneakily by a key source
            results.put(filter.name(), PreloadResult.failed(lastCount.get(), System.nanoTime() - start, ex));
            logger.error("Preload of shared filter '" + filter.name() + "' failed" + reading(ex) + "; calls pass"
                    + " through, and the filter retries the load in the background", ex);
        }
        // This instance did its part; the shared filter's status decides when it may reject.
        filter.finishLoading();
    }

    /** {@code ", reading <source>"} when a key source failed, else nothing. */
    private static String reading(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof KeySourceFailedException source) {
                return ", reading " + source.source();
            }
        }
        return "";
    }

    /** The key sources of a filter, for its history: bean names, or the preload query. */
    private static String describe(List<BloomKeySource> sources) {
        return sources.isEmpty() ? "none" : String.join(", ", sources.stream().map(String::valueOf).toList());
    }

    /** {@code "1 key"}, {@code "0 keys"}: a count for the log. */
    private static String keys(long count) {
        return count + (count == 1 ? " key" : " keys");
    }

    /** Outcome of the last preload of each filter, by name. */
    public Map<String, PreloadResult> results() {
        return Map.copyOf(results);
    }

    private void preload(NamedBloomFilter filter, List<BloomKeySource> sources) {
        long start = System.nanoTime();
        AtomicLong keysRead = new AtomicLong();
        if (!sources.isEmpty()) {
            // Kept for rebuilds. A filter with no source is filled by puts alone: a rebuild would empty it.
            filter.keySource(keyFeed(filter.name(), sources, new AtomicLong()));
        }
        try {
            keyFeed(filter.name(), sources, keysRead).feed(batch -> filter.backend().putAll(batch));
        }
        catch (Exception ex) { // checked ones too, thrown sneakily by a key source
            filter.transitionTo(FilterState.FAILED);
            results.put(filter.name(), PreloadResult.failed(keysRead.get(), System.nanoTime() - start, ex));
            filter.history().recordLoad(FilterHistory.LoadKind.PRELOAD, start, keysRead.get(), describe(sources),
                    String.valueOf(ex.getMessage()));
            boolean recovers = filter.recover();
            logger.error("Preload of filter '" + filter.name() + "' failed after " + keys(keysRead.get())
                    + reading(ex) + "; it lets every call through until " + (recovers
                            ? "it has loaded itself in the background (it retries with a growing pause)"
                            : "the application restarts and loads it again"), ex);
            return;
        }
        long elapsed = System.nanoTime() - start;
        results.put(filter.name(), PreloadResult.completed(keysRead.get(), elapsed));
        filter.history().recordLoad(FilterHistory.LoadKind.PRELOAD, start, keysRead.get(), describe(sources), null);
        if (!filter.finishLoading()) {
            logger.error("Preloaded filter '" + filter.name() + "': " + keys(keysRead.get()) + ", but it stays "
                    + filter.state() + ": a key written meanwhile did not reach it (see above), so it lets every"
                    + " call through");
            return;
        }
        logger.info("Preloaded filter '" + filter.name() + "': " + keys(keysRead.get()) + " in "
                + Duration.ofNanos(elapsed).toMillis() + " ms (" + Progress.rate(keysRead.get(), elapsed)
                + " keys/s); ready");
    }

    /**
     * Every key of a filter's sources, each read inside the read scope and handed on in batches, with progress
     * logged. Each call reads the sources afresh (a shared filter calls it again for every rebuild);
     * {@code keysRead} holds how many keys the last call read, also when it failed part way.
     */
    private KeyFeed keyFeed(String filter, List<BloomKeySource> sources, AtomicLong keysRead) {
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

        static long rate(long keys, long nanos) {
            return nanos <= 0 ? keys : Math.round(keys * 1e9 / nanos);
        }
    }

    private static Executor daemonThreadPerStart() {
        SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("bloom-guard-preload-");
        threads.setDaemon(true);
        return threads;
    }
}
