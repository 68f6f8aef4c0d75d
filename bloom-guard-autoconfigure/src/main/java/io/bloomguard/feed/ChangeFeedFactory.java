package io.bloomguard.feed;

/**
 * Creates the {@link ChangeFeed} of each filter whose {@code feed.type} is this factory's {@link #type()}. A bean of
 * this type adds a kind of feed; bloom-guard's own are {@code jdbc} and, with {@code bloom-guard-debezium},
 * {@code postgres}.
 *
 * @since 0.1.0
 */
public interface ChangeFeedFactory {

    /** The value of {@code bloom-guard.filters.NAME.feed.type} this factory serves, in lower case. */
    String type();

    /**
     * A feed for one filter. Throws {@link IllegalArgumentException} naming the property to fix when the settings do
     * not describe a feed of this kind: startup stops with it.
     */
    ChangeFeed create(FeedTarget target);
}
