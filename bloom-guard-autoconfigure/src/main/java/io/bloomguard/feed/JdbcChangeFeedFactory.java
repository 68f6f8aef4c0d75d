package io.bloomguard.feed;

import java.time.Clock;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * {@code feed.type: jdbc}: a {@link JdbcPollingFeed} over the application's {@code DataSource}.
 *
 * <p>Internal: public for bloom-guard's auto-configuration, not part of its API; it may change in any version.
 * @hidden
 */
public final class JdbcChangeFeedFactory implements ChangeFeedFactory {

    private final Supplier<DataSource> dataSource;
    private final Clock clock;

    /** @param dataSource the application's; asked for only when a filter has a jdbc feed */
    public JdbcChangeFeedFactory(Supplier<DataSource> dataSource, Clock clock) {
        this.dataSource = dataSource;
        this.clock = clock;
    }

    @Override
    public String type() {
        return "jdbc";
    }

    @Override
    public ChangeFeed create(FeedTarget target) {
        return new JdbcPollingFeed(target.filter(), dataSource.get(), target.settings().jdbc(), clock);
    }
}
