package io.bloomguard.feed;

import io.bloomguard.core.RebuildableBloomFilter;
import io.bloomguard.core.SharedFeedState;
import io.bloomguard.registry.FeedStatus;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps one filter current with its {@link ChangeFeed}: applies each batch (adds; removes on a counting filter,
 * where they are safe), saves the position once the keys are in, and says how far behind the filter is. A local
 * filter's feed runs on every instance. A shared filter's runs on the one instance holding its lease in the store;
 * the others follow, reading how current the consumer keeps it.
 *
 * <p>Removes: a deleted row's key is removed only if the filter's current build certainly counted it, that is if
 * the delete committed after this runner saw the build in place (its epoch, and the filter {@code READY}), by a
 * {@link #CLOCK_MARGIN margin} for the database's clock. Otherwise the key stays, a false positive until the next
 * rebuild: removing a key the build never counted would take counts from other keys.
 *
 * <p>Internal: public for bloom-guard's auto-configuration, not part of its API; it may change in any version.
 * @hidden
 */
public final class FilterFeed implements FeedSink, FeedStatus, AutoCloseable {

    private static final Log logger = LogFactory.getLog(FilterFeed.class);

    /** How long a shared filter's consumer holds its lease without renewing it: a consumer that dies is replaced. */
    static final Duration LEASE_TTL = Duration.ofSeconds(10);

    /** How far the database's commit clock may run ahead of this instance's. */
    static final Duration CLOCK_MARGIN = Duration.ofSeconds(2);

    private final NamedBloomFilter filter;
    private final Supplier<ChangeFeed> feeds;
    private final FeedSettings settings;
    private final @Nullable SharedFeedState shared;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final String instance = UUID.randomUUID().toString();
    private final String description;

    private final Object lock = new Object();
    private @Nullable ChangeFeed running;
    /** The feed created first, to be started first (a feed is created once per start). */
    private @Nullable ChangeFeed unstarted;
    private @Nullable ScheduledFuture<?> coordination;
    private volatile State state = State.STOPPED;
    private volatile @Nullable Instant currentAsOf;
    private volatile @Nullable String position;
    private volatile @Nullable String failure;
    private volatile @Nullable Instant lastChange;
    private volatile Consumer<Duration> lagListener = lag -> { };

    /** The build this runner last saw (epoch, and whether the filter was READY), and since when. */
    private long seenEpoch = Long.MIN_VALUE;
    private boolean seenReady;
    private Instant buildSeenAt = Instant.MIN;

    private final AtomicLong added = new AtomicLong();
    private final AtomicLong removed = new AtomicLong();
    private final AtomicLong deletesKept = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    /**
     * @param feeds a new feed for each start (a feed closed after a lost position is not started again)
     * @param shared the shared filter's feed state in its store, or {@code null} for a local filter
     * @param scheduler runs a shared filter's lease renewals
     */
    public FilterFeed(NamedBloomFilter filter, Supplier<ChangeFeed> feeds, FeedSettings settings,
            @Nullable SharedFeedState shared, ScheduledExecutorService scheduler, Clock clock) {
        this.filter = filter;
        this.feeds = feeds;
        this.settings = settings;
        this.shared = shared;
        this.scheduler = scheduler;
        this.clock = clock;
        this.unstarted = feeds.get();
        this.description = unstarted.description();
        filter.follow(this);
    }

    /** Starts following: a local filter's feed at once, a shared filter's once this instance holds the lease. */
    public void start() {
        synchronized (lock) {
            state = State.STARTING;
            if (shared == null) {
                startFeed(null);
            }
            else {
                long every = LEASE_TTL.toMillis() / 5;
                coordination = scheduler.scheduleWithFixedDelay(this::coordinate, 0, every, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Takes or renews the lease, starting or stopping the feed here as it is won or lost; else reads the state. */
    void coordinate() {
        SharedFeedState store = Objects.requireNonNull(shared);
        try {
            boolean leads = store.lead(instance, LEASE_TTL);
            synchronized (lock) {
                if (state == State.STOPPED) {
                    return;
                }
                if (leads && running == null) {
                    SharedFeedState.Stored stored = store.read();
                    logger.info("Filter '" + filter.name() + "': this instance consumes its change feed now");
                    startFeed(stored.position());
                }
                else if (!leads) {
                    if (running != null) {
                        logger.info("Filter '" + filter.name() + "': another instance consumes its change feed now");
                        stopFeed();
                    }
                    state = State.FOLLOWING;
                    SharedFeedState.Stored stored = store.read();
                    currentAsOf = stored.currentAsOf();
                    position = stored.position();
                }
            }
        }
        catch (RuntimeException ex) {
            // The store cannot be reached: the consumer goes on (its puts are buffered), a follower's lag grows.
            logger.debug("Filter '" + filter.name() + "': could not reach the change feed's state", ex);
        }
    }

    private void startFeed(@Nullable String from) {
        ChangeFeed feed = (unstarted != null) ? unstarted : feeds.get();
        unstarted = null;
        running = feed;
        state = State.STARTING;
        logger.info("Filter '" + filter.name() + "': following its change feed (" + description + ") from "
                + ((from == null) ? "the present" : "position " + from) + "; max-lag " + settings.maxLag()
                + ", when behind: " + settings.whenBehind().name().toLowerCase(java.util.Locale.ROOT));
        feed.start(from, this);
    }

    private void stopFeed() {
        ChangeFeed feed = running;
        running = null;
        if (feed != null) {
            feed.close();
        }
    }

    @Override
    public void accept(FeedBatch batch) {
        Instant now = clock.instant();
        long epoch = observeBuild(now);
        for (FeedChange change : batch.changes()) {
            if (!change.removed()) {
                filter.put(change.key());
                added.incrementAndGet();
            }
            else if (removable(change)) {
                filter.remove(change.key(), epoch);
                removed.incrementAndGet();
            }
            else {
                deletesKept.incrementAndGet();
            }
        }
        Instant applied = clock.instant();
        for (FeedChange change : batch.changes()) {
            if (change.committedAt() != null) {
                lagListener.accept(positive(Duration.between(change.committedAt(), applied)));
            }
        }
        if (shared != null && !shared.save(instance, batch.position(), batch.currentAsOf())) {
            throw new IllegalStateException("Filter '" + filter.name() + "': another instance consumes the change"
                    + " feed now; this one stops");
        }
        if (!batch.changes().isEmpty()) {
            lastChange = applied;
        }
        if (batch.position() != null) {
            position = batch.position();
        }
        currentAsOf = batch.currentAsOf();
        if (failure != null) {
            logger.info("Filter '" + filter.name() + "': its change feed reads again");
            failure = null;
        }
        if (state == State.STARTING || state == State.FAILING) {
            state = State.RUNNING;
        }
    }

    /** Notes a new build (its epoch moved, or the filter became READY): deletes committed before it stay. */
    private synchronized long observeBuild(Instant now) {
        long epoch = (filter.backend() instanceof RebuildableBloomFilter rebuildable) ? rebuildable.buildEpoch() : 0L;
        boolean ready = filter.state() == FilterState.READY;
        if (epoch != seenEpoch || ready != seenReady) {
            seenEpoch = epoch;
            seenReady = ready;
            buildSeenAt = now;
        }
        return epoch;
    }

    private synchronized boolean removable(FeedChange change) {
        Instant committed = change.committedAt();
        return filter.spec().sizing().type().removable() && seenReady
                && committed != null && committed.isAfter(buildSeenAt.plus(CLOCK_MARGIN));
    }

    @Override
    public void failing(Exception cause) {
        String was = failure;
        failure = clock.instant() + ": " + cause;
        state = State.FAILING;
        if (was == null) {
            logger.warn("Filter '" + filter.name() + "': its change feed cannot read (" + cause + "); retrying. "
                    + "Past max-lag " + settings.maxLag() + " the filter counts as behind");
        }
    }

    @Override
    public void lost(String why) {
        lost.incrementAndGet();
        logger.error("Filter '" + filter.name() + "': its change feed lost its position (" + why + "): changes may"
                + " have been missed. The feed starts again from the present, and the filter is rebuilt from its key"
                + " source");
        // Not on the feed's own thread, which closing the feed may wait for.
        scheduler.execute(() -> {
            synchronized (lock) {
                if (state == State.STOPPED) {
                    return;
                }
                stopFeed();
                position = null;
                // The new feed first: the rebuild reads after its start, so every change is in one or the other.
                startFeed(null);
            }
            filter.markIncomplete("its change feed lost its position: " + why);
        });
    }

    @Override
    public void close() {
        synchronized (lock) {
            state = State.STOPPED;
            if (coordination != null) {
                coordination.cancel(false);
            }
            stopFeed();
            if (unstarted != null) {
                unstarted.close();
                unstarted = null;
            }
            if (shared != null) {
                try {
                    shared.release(instance);
                }
                catch (RuntimeException ex) {
                    logger.debug("Filter '" + filter.name() + "': could not release the change feed's lease", ex);
                }
            }
        }
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public @Nullable Duration lag() {
        Instant current = currentAsOf;
        return (current == null) ? null : positive(Duration.between(current, clock.instant()));
    }

    @Override
    public Duration maxLag() {
        return settings.maxLag();
    }

    @Override
    public boolean keepsRejectingWhenBehind() {
        return settings.whenBehind() == WhenBehind.KEEP;
    }

    @Override
    public @Nullable String position() {
        return position;
    }

    @Override
    public @Nullable String failure() {
        return failure;
    }

    @Override
    public @Nullable Instant lastChange() {
        return lastChange;
    }

    @Override
    public Counts counts() {
        return new Counts(added.get(), removed.get(), deletesKept.get(), lost.get());
    }

    @Override
    public void onChangeLag(Consumer<Duration> listener) {
        this.lagListener = listener;
    }

    private static Duration positive(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }
}
