package io.bloomguard.core;

import java.util.List;
import java.util.function.Consumer;

/**
 * Every key a filter should hold, handed over batch by batch: what a backend that builds itself (a shared
 * filter electing one loader, a rebuild) reads. Each call reads the keys afresh from their sources.
 *
 * <p>Usage: {@code long keys = feed.feed(batch -> bits.putAll(batch));}
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface KeyFeed {

    /** A feed with no keys. */
    KeyFeed EMPTY = batches -> 0;

    /**
     * Reads every key and hands them to {@code batches}, a batch at a time (the list is reused after the call
     * returns, so a consumer that keeps keys must copy them).
     *
     * @return number of keys read
     */
    long feed(Consumer<List<Object>> batches);

    /**
     * Whether the feed yields every key the filter should hold: {@code false} for a filter filled by puts alone, whose
     * feed is empty. A backend that lost keys rebuilds from a complete feed; from another it cannot.
     */
    default boolean complete() {
        return true;
    }
}
