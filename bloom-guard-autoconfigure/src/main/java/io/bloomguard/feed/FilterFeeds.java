package io.bloomguard.feed;

import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.context.SmartLifecycle;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The change feeds of every filter that has one, started with the application context, before the preload reads
 * the filters' key sources (a feed started before the read loses no row committed after it), and stopped with it.
 *
 * <p>Internal: public for bloom-guard's auto-configuration, not part of its API; it may change in any version.
 * @hidden
 */
public final class FilterFeeds implements SmartLifecycle {

    private final List<FilterFeed> feeds = new ArrayList<>();
    private final ScheduledExecutorService scheduler;
    private volatile boolean running;

    /**
     * Creates each filter's feed with the factory of its type; refuses a type no factory serves, naming the known
     * ones.
     *
     * @param settings the feed of each filter that has one, by filter name
     * @param scheduler the leases' renewals; owned from now on
     */
    public FilterFeeds(BloomFilterRegistry registry, Map<String, FeedSettings> settings,
            List<ChangeFeedFactory> factories, ScheduledExecutorService scheduler, Clock clock) {
        this.scheduler = scheduler;
        Map<String, ChangeFeedFactory> byType = new TreeMap<>();
        factories.forEach(factory -> byType.putIfAbsent(factory.type(), factory));
        settings.forEach((name, feed) -> {
            ChangeFeedFactory factory = byType.get(feed.type());
            if (factory == null) {
                throw new IllegalArgumentException("bloom-guard.filters." + name + ".feed.type is '" + feed.type()
                        + "'; the kinds of feed available are " + byType.keySet()
                        + (feed.type().equals("postgres") ? " (postgres comes with the bloom-guard-debezium module)" : ""));
            }
            NamedBloomFilter filter = registry.get(name);
            SharedBloomFilter shared = filter.shared().orElse(null);
            FeedTarget target = new FeedTarget(name, filter.spec().sizing().type().removable(),
                    shared != null, feed);
            feeds.add(new FilterFeed(filter, () -> factory.create(target), feed,
                    (shared != null) ? shared.feedState() : null, scheduler, clock));
        });
    }

    @Override
    public void start() {
        feeds.forEach(FilterFeed::start);
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        feeds.forEach(FilterFeed::close);
        scheduler.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The feeds, one per filter that has one. */
    public List<FilterFeed> feeds() {
        return List.copyOf(feeds);
    }
}
