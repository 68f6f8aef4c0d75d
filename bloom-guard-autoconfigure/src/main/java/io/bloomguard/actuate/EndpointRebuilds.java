package io.bloomguard.actuate;

import io.bloomguard.actuate.BloomFiltersEndpoint.RebuildDescriptor;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The rebuilds the endpoint started, by id, so that an operator can poll one: the request that starts a rebuild
 * answers at once (an ingress would cut a request that waits for the keys to be read). One runs per filter at a time:
 * asked again meanwhile, it answers with the running one. The last {@value #FINISHED_KEPT} finished ones are kept.
 */
final class EndpointRebuilds {

    /** Finished rebuilds kept to be polled; older ones are forgotten (their outcome stays in the log and history). */
    static final int FINISHED_KEPT = 16;

    private static final Log logger = LogFactory.getLog(BloomFiltersEndpoint.class);

    /**
     * Starts every id this instance gives, so that a poll that reaches another instance, or this one after a
     * restart, finds no rebuild rather than another one with the same number.
     */
    private final String idPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    private long lastId;
    /** Every kept rebuild, oldest first. */
    private final Map<String, Rebuild> byId = new LinkedHashMap<>();
    private final Map<String, Rebuild> runningByFilter = new HashMap<>();

    /**
     * Starts rebuilding {@code filter} in the background, or finds the rebuild of it already running.
     *
     * @param confirmed {@code confirm-rebuild}: swapped in however few keys it reads
     * @param by        who asked, for the log
     * @throws RuntimeException what the filter refuses before reading a key (see
     *                          {@link NamedBloomFilter#rebuildInBackground})
     */
    synchronized RebuildDescriptor start(NamedBloomFilter filter, boolean confirmed, String by) {
        Rebuild running = runningByFilter.get(filter.name());
        if (running != null) {
            return running.describe(false);
        }
        CompletableFuture<Long> keys = filter.rebuildInBackground(confirmed);
        Rebuild rebuild = new Rebuild(idPrefix + "-" + (++lastId), filter.name(),
                confirmed ? "confirm-rebuild" : "rebuild", Instant.now(), System.nanoTime(), keys);
        byId.put(rebuild.id, rebuild);
        runningByFilter.put(filter.name(), rebuild);
        logger.info("Filter '" + filter.name() + "': " + rebuild.action + " " + rebuild.id + " started by " + by);
        keys.whenComplete((read, failure) -> finished(rebuild, read, failure));
        forgetOldest();
        return rebuild.describe(true);
    }

    /** The rebuild with this id of this filter, or {@code null} when there is none (or it was forgotten). */
    synchronized @Nullable RebuildDescriptor find(String filter, String id) {
        Rebuild rebuild = byId.get(id);
        return (rebuild != null && rebuild.filter.equals(filter)) ? rebuild.describe(false) : null;
    }

    private synchronized void finished(Rebuild rebuild, @Nullable Long keys, @Nullable Throwable failure) {
        rebuild.finished(System.nanoTime());
        runningByFilter.remove(rebuild.filter, rebuild);
        if (failure == null) {
            logger.info("Filter '" + rebuild.filter + "': " + rebuild.action + " " + rebuild.id + " read " + keys
                    + " keys");
        }
        else {
            logger.warn("Filter '" + rebuild.filter + "': " + rebuild.action + " " + rebuild.id + " failed; the live"
                    + " filter keeps answering: " + cause(failure).getMessage());
        }
        forgetOldest();
    }

    private void forgetOldest() {
        int finished = (int) byId.values().stream().filter(Rebuild::done).count();
        for (Iterator<Rebuild> oldestFirst = byId.values().iterator(); finished > FINISHED_KEPT
                && oldestFirst.hasNext();) {
            if (oldestFirst.next().done()) {
                oldestFirst.remove();
                finished--;
            }
        }
    }

    private static Throwable cause(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

    /** One rebuild: its outcome is its future's. */
    private static final class Rebuild {

        final String id;
        final String filter;
        final String action;
        final Instant started;
        final long startNanos;
        final CompletableFuture<Long> keys;
        private volatile long durationNanos = -1;
        private volatile @Nullable Instant finishedAt;

        Rebuild(String id, String filter, String action, Instant started, long startNanos,
                CompletableFuture<Long> keys) {
            this.id = id;
            this.filter = filter;
            this.action = action;
            this.started = started;
            this.startNanos = startNanos;
            this.keys = keys;
        }

        void finished(long nanos) {
            durationNanos = nanos - startNanos;
            finishedAt = Instant.now();
        }

        boolean done() {
            return finishedAt != null;
        }

        RebuildDescriptor describe(boolean startedNow) {
            Instant finished = finishedAt;
            long nanos = (finished != null) ? durationNanos : System.nanoTime() - startNanos;
            String state = "running";
            Long read = null;
            String error = null;
            if (finished != null) {
                try {
                    read = keys.join();
                    state = "succeeded";
                }
                catch (RuntimeException ex) {
                    state = "failed";
                    error = String.valueOf(cause(ex).getMessage());
                }
            }
            return new RebuildDescriptor(id, filter, action, state, started.toString(),
                    (finished != null) ? finished.toString() : null, read, Duration.ofNanos(nanos).toMillis(), error,
                    startedNow);
        }
    }
}
