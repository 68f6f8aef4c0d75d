package io.bloomguard.debezium;

import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.ChangeFeedFactory;
import io.bloomguard.feed.FeedTarget;
import org.jspecify.annotations.Nullable;

/**
 * Creates the {@link PostgresChangeFeed} of each filter with {@code feed.type: postgres}. A filter's
 * {@code feed.postgres.url}, {@code username} and {@code password} name its database; without a URL the feed follows
 * the application's own database, as {@code spring.datasource.url}, {@code username} and {@code password} name it
 * (the defaults given here).
 *
 * @since 0.1.0
 */
public final class PostgresChangeFeedFactory implements ChangeFeedFactory {

    private final @Nullable String defaultUrl;

    private final @Nullable String defaultUsername;

    private final @Nullable String defaultPassword;

    /**
     * @param defaultUrl the database of filters without {@code feed.postgres.url}: the application's
     *     {@code spring.datasource.url}, or {@code null}
     * @param defaultUsername {@code spring.datasource.username}, or {@code null}
     * @param defaultPassword {@code spring.datasource.password}, or {@code null}
     */
    public PostgresChangeFeedFactory(@Nullable String defaultUrl, @Nullable String defaultUsername,
            @Nullable String defaultPassword) {
        this.defaultUrl = defaultUrl;
        this.defaultUsername = defaultUsername;
        this.defaultPassword = defaultPassword;
    }

    /** {@code postgres}. */
    @Override
    public String type() {
        return "postgres";
    }

    /**
     * A feed for {@code target}, not started.
     * @throws IllegalArgumentException naming the property to fix: no table, or no PostgreSQL URL
     */
    @Override
    public ChangeFeed create(FeedTarget target) {
        return new PostgresChangeFeed(PostgresFeedSettings.resolve(target, this.defaultUrl, this.defaultUsername,
                this.defaultPassword));
    }
}
