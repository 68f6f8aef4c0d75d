package io.bloomguard.feed;

/**
 * Where a {@link ChangeFeed} delivers: the filter that follows it. Implemented by bloom-guard.
 *
 * @since 0.1.0
 */
public interface FeedSink {

    /**
     * Applies a batch: when this returns, the batch's keys are in the filter (or removed from a counting filter) and
     * its position is saved, so that a restart resumes after it. Throws when the keys could not be applied; the feed
     * then delivers the batch again.
     */
    void accept(FeedBatch batch);

    /**
     * The feed cannot read its changes at the moment (the database is down, the query fails); it keeps trying on
     * its own. The filter counts as behind from the last batch on.
     */
    void failing(Exception cause);

    /**
     * The feed cannot resume without a gap (its replication slot or its stored position is gone): changes may have
     * been missed. The filter is rebuilt from its key source, and the feed is started again from the present.
     */
    void lost(String why);
}
