package io.bloomguard.feed;

/**
 * What a filter does while its feed is behind ({@code feed.max-lag} passed) or down.
 *
 * @since 0.1.0
 */
public enum WhenBehind {

    /**
     * Lookups pass through until the feed catches up: a row written elsewhere is never rejected, at the cost of the
     * database seeing absent keys meanwhile. The default, since a key that exists must never be rejected.
     */
    PASS,

    /** The filter keeps rejecting: for teams that accept that rows written elsewhere are not found for that long. */
    KEEP
}
