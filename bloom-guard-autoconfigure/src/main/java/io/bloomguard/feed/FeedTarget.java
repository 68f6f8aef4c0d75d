package io.bloomguard.feed;

import java.util.Objects;

/**
 * The filter a {@link ChangeFeedFactory} creates a feed for.
 *
 * @param filter the filter's name
 * @param removes whether the filter applies deletes ({@code type: counting} or {@code cuckoo}); a feed of another filter may skip
 *     reading them
 * @param shared whether one instance consumes the feed for all (a filter kept in a store, such as Redis, which saves
 *     its position), or each instance its own (a local filter, whose feed starts from the present at each start)
 * @param settings {@code bloom-guard.filters.NAME.feed.*}
 * @since 0.1.0
 */
public record FeedTarget(String filter, boolean removes, boolean shared, FeedSettings settings) {

    public FeedTarget {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(settings, "settings");
    }
}
