package io.bloomguard.feed;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;

/**
 * One change a feed read: a key whose row was inserted (or whose key changed to it), or a key whose row was deleted.
 *
 * @param key the row's key, of any type the filter takes ({@code 42L}, {@code "42"} and {@code 42} are one key)
 * @param removed whether the row was deleted: the database's delete is the proof a counting filter needs to remove
 *     the key; other filters keep it until a rebuild
 * @param committedAt when the change was committed, or stamped, where the feed knows it: the lag is measured from it
 * @since 0.1.0
 */
public record FeedChange(Object key, boolean removed, @Nullable Instant committedAt) {

    public FeedChange {
        Objects.requireNonNull(key, "key");
    }

    /** A row that now exists under {@code key}. */
    public static FeedChange added(Object key, @Nullable Instant committedAt) {
        return new FeedChange(key, false, committedAt);
    }

    /** A row under {@code key} that was deleted. */
    public static FeedChange deleted(Object key, @Nullable Instant committedAt) {
        return new FeedChange(key, true, committedAt);
    }
}
