package io.bloomguard.preload;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Fills every filter from its key sources, logging progress: local filters one after another, shared ones all at
 * once (each may wait out a rebuild grace before it reads its sources, and those waits overlap). A filter moves from
 * {@code LOADING} to {@code READY} when all its sources were read, or to {@code FAILED} (it then lets every
 * call through) when one of them threw. A filter with no key source is ready at once, empty: if methods are
 * guarded with it, that is almost certainly a mistake, and a warning names them.
 *
 * <p>Usage (what the auto-configuration runs at startup): {@code new FilterPreloader(registry, sources,
 * scope, guarded).preloadAll();}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class FilterPreloader {

    private static final Log logger = LogFactory.getLog(FilterPreloader.class);

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
            if (registry.get(source.filter()).spec().writes().putsOnly()) {
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
            if (filter.spec().writes().putsOnly()) {
                logger.info("Filter '" + filter.name() + "' is filled by puts alone: it starts empty and is never"
                        + " rebuilt");
            }
            else if (sources.isEmpty() && filter.shared().isEmpty()) {
                // (A shared filter with no source here waits for an instance that has one, and says so.)
                Set<String> methods = guarded.getOrDefault(filter.name(), Set.of());
                if (!methods.isEmpty()) {
                    logger.warn("Filter '" + filter.name() + "' guards " + String.join(", ", methods)
                            + " but has no key source: it starts empty and rejects every key not added since."
                            + " Declare a BloomKeySource or ReactiveBloomKeySource bean for it or set"
                            + " bloom-guard.filters." + filter.name() + ".preload.sql");
                }
                else {
                    logger.info("Filter '" + filter.name() + "' has no key source and guards no method: ready, empty,"
                            + " for keys put from code");
                }
            }
            SharedBloomFilter shared = filter.shared().orElse(null);
            if (shared != null) {
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
        KeyFeed feed = new KeySourceFeed(filter.name(), sources, scope).feed(lastCount);
        long start = System.nanoTime();
        try {
            // A filter filled by puts alone is created empty by whichever instance comes first.
            SharedBloomFilter.StartOutcome outcome = (sources.isEmpty() && !filter.spec().writes().putsOnly())
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
            filter.keySource(new KeySourceFeed(filter.name(), sources, scope).feed(new AtomicLong()));
        }
        try {
            new KeySourceFeed(filter.name(), sources, scope).feed(keysRead)
                    .feed(batch -> filter.backend().putAll(batch));
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
                + Duration.ofNanos(elapsed).toMillis() + " ms (" + KeySourceFeed.rate(keysRead.get(), elapsed)
                + " keys/s); ready");
    }

    private static Executor daemonThreadPerStart() {
        SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("bloom-guard-preload-");
        threads.setDaemon(true);
        return threads;
    }
}
