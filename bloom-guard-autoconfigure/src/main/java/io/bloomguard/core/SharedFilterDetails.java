package io.bloomguard.core;

import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * What an operator may see of a shared filter's store, as its instance last read it (never the hash seed).
 *
 * <p>Usage: {@code if (sharedFilter.details().checksBreakerOpen()) ...}
 *
 * @param generation          the live generation's layout, block count, hash count and shard count, with {@code *}
 *                            for the seed (e.g. {@code v1.b19531.k7.s*.n1}); {@code null} while no complete
 *                            generation is live
 * @param keys                the live generation's bitmap keys, one per shard, with {@code *} for the seed: each is
 *                            a pattern for {@code redis-cli --scan --pattern}; empty while none is live
 * @param checksBreakerOpen   whether the circuit breaker of single-key checks is open (they fail at once)
 * @param commandsBreakerOpen whether the circuit breaker of adds and other commands is open
 * @param shards              keys the filter's bits are split over
 */
public record SharedFilterDetails(@Nullable String generation, List<String> keys, boolean checksBreakerOpen,
        boolean commandsBreakerOpen, int shards) {

    public SharedFilterDetails {
        keys = List.copyOf(keys);
    }

    /** Whether either circuit breaker is open. */
    public boolean breakerOpen() {
        return checksBreakerOpen || commandsBreakerOpen;
    }
}
