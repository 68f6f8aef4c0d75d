package io.bloomguard.feed;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Changes a feed read, in commit order, with how current they make the filter.
 *
 * @param changes the changes, possibly none (a poll that found nothing still moves {@code currentAsOf})
 * @param currentAsOf every change committed before this moment is in this batch or an earlier one: the filter's
 *     freshness is measured from it
 * @param position where to resume after this batch, in the feed's own form; {@code null} when it did not move
 * @since 0.1.0
 */
public record FeedBatch(List<FeedChange> changes, Instant currentAsOf, @Nullable String position) {

    public FeedBatch {
        changes = List.copyOf(changes);
        Objects.requireNonNull(currentAsOf, "currentAsOf");
    }
}
