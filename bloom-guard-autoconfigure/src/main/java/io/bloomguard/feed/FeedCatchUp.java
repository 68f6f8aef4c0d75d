package io.bloomguard.feed;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits, after the preload, for each feed to catch up once (at most its {@code max-lag}), so that the application
 * reports itself ready with filters that reject: until its first batch a feed counts as behind, and with
 * {@code when-behind: pass} its filter lets every lookup through. A feed that does not catch up in time is logged;
 * the application starts anyway, its filter passing lookups through until the feed catches up.
 *
 * <p>Internal: public for bloom-guard's auto-configuration, not part of its API; it may change in any version.
 * @hidden
 */
public final class FeedCatchUp implements ApplicationRunner, Ordered {

    private static final Log logger = LogFactory.getLog(FeedCatchUp.class);

    /** Right after the preload runner's. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 101;

    private final FilterFeeds feeds;

    public FeedCatchUp(FilterFeeds feeds) {
        this.feeds = feeds;
    }

    @Override
    public void run(ApplicationArguments args) {
        for (FilterFeed feed : feeds.feeds()) {
            long started = System.nanoTime();
            long deadline = started + feed.maxLag().toNanos();
            while (feed.behind() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            if (feed.behind()) {
                logger.warn("A change feed (" + feed.description() + ") has not caught up " + waited.toMillis()
                        + " ms after the preload: its filter " + (feed.keepsRejectingWhenBehind()
                                ? "rejects rows written elsewhere meanwhile" : "lets lookups through")
                        + " until it does" + ((feed.failure() != null) ? "; last failure: " + feed.failure() : ""));
            }
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
