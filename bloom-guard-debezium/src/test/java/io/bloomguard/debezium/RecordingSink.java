package io.bloomguard.debezium;

import io.bloomguard.feed.FeedBatch;
import io.bloomguard.feed.FeedChange;
import io.bloomguard.feed.FeedSink;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link FeedSink} that keeps what it is given, with when each batch arrived, for tests to look at. */
final class RecordingSink implements FeedSink {

    final List<FeedBatch> batches = new CopyOnWriteArrayList<>();

    final List<FeedChange> changes = new CopyOnWriteArrayList<>();

    /** When each key's first add arrived (this JVM's clock). */
    final Map<Object, Instant> addedAt = new ConcurrentHashMap<>();

    final List<Exception> failures = new CopyOnWriteArrayList<>();

    final List<String> lost = new CopyOnWriteArrayList<>();

    @Override
    public void accept(FeedBatch batch) {
        Instant now = Instant.now();
        this.batches.add(batch);
        this.changes.addAll(batch.changes());
        batch.changes().stream().filter((change) -> !change.removed())
            .forEach((change) -> this.addedAt.putIfAbsent(change.key(), now));
    }

    @Override
    public void failing(Exception cause) {
        this.failures.add(cause);
    }

    @Override
    public void lost(String why) {
        this.lost.add(why);
    }

    /** The position of the last batch, as the runner would have saved it. */
    @Nullable String lastPosition() {
        for (int i = this.batches.size() - 1; i >= 0; i--) {
            if (this.batches.get(i).position() != null) {
                return this.batches.get(i).position();
            }
        }
        return null;
    }

    /** The keys added, in order of arrival. */
    List<Object> addedKeys() {
        return this.changes.stream().filter((change) -> !change.removed()).map(FeedChange::key).toList();
    }

    /** The latest {@code currentAsOf}. */
    @Nullable Instant currentAsOf() {
        return this.batches.isEmpty() ? null : this.batches.get(this.batches.size() - 1).currentAsOf();
    }
}
