package io.bloomguard.registry;

import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What happened to one filter that an operator asks about: its last preload and rebuild, and since when it has
 * been in its state. Listeners (the meters) hear of every load as it ends.
 *
 * <p>Usage: {@code filter.history().lastPreload()}; {@code filter.history().onLoad(load -> timer.record(load.duration()))}
 *
 * @since 0.1.0
 */
public final class FilterHistory {

    private final Clock clock;
    private final List<Consumer<Load>> listeners = new CopyOnWriteArrayList<>();
    private volatile @Nullable Load lastPreload;
    private volatile @Nullable Load lastRebuild;
    private volatile @Nullable Load lastSuccess;
    private volatile @Nullable FilterState observed;
    private volatile Instant observedSince;

    FilterHistory(Clock clock) {
        this.clock = clock;
        this.observedSince = clock.instant();
    }

    /** The last preload (at startup), or {@code null} before it ended. */
    public @Nullable Load lastPreload() {
        return lastPreload;
    }

    /** The last rebuild (on demand, scheduled, or after the store lost the filter), or {@code null} if none ended. */
    public @Nullable Load lastRebuild() {
        return lastRebuild;
    }

    /**
     * The last load, preload or rebuild, that completed: the filter holds the key source's keys as of then (and the
     * puts since). {@code null} before the first one; a later failure does not replace it.
     */
    public @Nullable Load lastSuccess() {
        return lastSuccess;
    }

    /** Records a load that has ended, and tells the listeners. */
    public void recordLoad(Load load) {
        if (load.succeeded()) {
            lastSuccess = load;
        }
        if (load.kind() == LoadKind.PRELOAD) {
            lastPreload = load;
        }
        else {
            lastRebuild = load;
        }
        listeners.forEach(listener -> listener.accept(load));
    }

    /**
     * Records a load that has ended now, begun at {@code startNanos} ({@code System.nanoTime()}); {@code failure} says
     * why it failed, {@code null} if it completed.
     */
    public void recordLoad(LoadKind kind, long startNanos, long keys, String source, @Nullable String failure) {
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        recordLoad(new Load(kind, clock.instant().minus(took), keys, took, source, failure));
    }

    /** Calls {@code listener} with every load that ends from now on. */
    public void onLoad(Consumer<Load> listener) {
        listeners.add(listener);
    }

    /**
     * Since when the filter has been in {@code current}, as far as this history has seen: the first time a state is
     * observed is when it began (a shared filter's state changes in its store, and is seen when read).
     */
    Instant since(FilterState current) {
        if (current != observed) {
            synchronized (this) {
                if (current != observed) {
                    observed = current;
                    observedSince = clock.instant();
                }
            }
        }
        return observedSince;
    }

    /** What a load was for. */
    public enum LoadKind {
        /** The startup load from the key source. */
        PRELOAD,
        /** A rebuild beside the live filter. */
        REBUILD
    }

    /**
     * One load of a filter from its key source.
     *
     * @param kind     preload or rebuild
     * @param started  when it began
     * @param keys     keys read from the key source
     * @param duration how long it took
     * @param source   what the keys came from
     * @param failure  why it failed, or {@code null} if it completed
     */
    public record Load(LoadKind kind, Instant started, long keys, Duration duration, String source,
            @Nullable String failure) {

        public boolean succeeded() {
            return failure == null;
        }

        /** When it ended. */
        public Instant ended() {
            return started.plus(duration);
        }
    }
}
