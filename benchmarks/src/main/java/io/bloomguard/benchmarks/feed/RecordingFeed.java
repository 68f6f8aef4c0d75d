package io.bloomguard.benchmarks.feed;

import io.bloomguard.feed.ChangeFeed;
import io.bloomguard.feed.FeedBatch;
import io.bloomguard.feed.FeedChange;
import io.bloomguard.feed.FeedSink;
import org.jspecify.annotations.Nullable;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A feed that notes each key the filter took (once its sink returned), so that the end of a run can say exactly
 * which inserted rows reached the filter, beyond what {@code mightContain} (with its false positives) can say.
 */
final class RecordingFeed implements ChangeFeed {

    private final ChangeFeed feed;

    private final Set<Long> delivered = ConcurrentHashMap.newKeySet();

    RecordingFeed(ChangeFeed feed) {
        this.feed = feed;
    }

    /** The keys the filter took so far. */
    Set<Long> delivered() {
        return this.delivered;
    }

    @Override
    public void start(@Nullable String from, FeedSink sink) {
        this.feed.start(from, new FeedSink() {
            @Override
            public void accept(FeedBatch batch) {
                sink.accept(batch);
                for (FeedChange change : batch.changes()) {
                    if (!change.removed()) {
                        RecordingFeed.this.delivered.add(((Number) change.key()).longValue());
                    }
                }
            }

            @Override
            public void failing(Exception cause) {
                System.out.println("  feed failing: " + cause);
                sink.failing(cause);
            }

            @Override
            public void lost(String why) {
                System.out.println("  feed lost its position: " + why);
                sink.lost(why);
            }
        });
    }

    @Override
    public String description() {
        return this.feed.description();
    }

    @Override
    public void close() {
        this.feed.close();
    }
}
