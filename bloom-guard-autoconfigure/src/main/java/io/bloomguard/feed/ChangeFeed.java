package io.bloomguard.feed;

import org.jspecify.annotations.Nullable;

/**
 * Follows one filter's table and hands what changed to a {@link FeedSink}, in commit order: the SPI a kind of
 * feed implements ({@link ChangeFeedFactory} creates one per filter).
 *
 * <pre>{@code
 * feed.start(savedPosition, sink);   // returns at once; changes arrive on the feed's own thread
 * ...
 * feed.close();
 * }</pre>
 *
 * <p>A feed never drops a change quietly: what it cannot read it reports ({@link FeedSink#failing}) and retries, and
 * a position it cannot resume from it reports as lost ({@link FeedSink#lost}), after which the filter is rebuilt.
 *
 * @since 0.1.0
 */
public interface ChangeFeed extends AutoCloseable {

    /**
     * Starts delivering the changes committed after {@code from}, on a thread of the feed's own, and returns.
     * {@link FeedSink#accept} is called by one thread at a time; the feed moves on only once it has returned.
     *
     * @param from a position this feed handed over in a {@link FeedBatch} before, to resume after; {@code null} to
     *     start at the present end of the table's changes. A feed started with {@code null} must see every change
     *     committed after this call returns.
     */
    void start(@Nullable String from, FeedSink sink);

    /** What the feed reads, for the startup line and the endpoint: {@code "jdbc polling every 1s"}. */
    String description();

    /** Stops reading; a batch being delivered is finished first. */
    @Override
    void close();
}
