package io.bloomguard.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
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
 * @param nearCopy            this instance's copy of the shared bits; {@code null} when the filter keeps none
 * @param losses              adds the store acknowledged and lost since (a failover, a restore), as this instance found
 *                            them, and their repair
 *
 * @since 0.1.0
 */
public record SharedFilterDetails(@Nullable String generation, List<String> keys, boolean checksBreakerOpen,
        boolean commandsBreakerOpen, int shards, @Nullable NearCopy nearCopy, Losses losses) {

    public SharedFilterDetails {
        keys = List.copyOf(keys);
    }

    /** Details of a filter that keeps no near copy and has found no loss. */
    public SharedFilterDetails(@Nullable String generation, List<String> keys, boolean checksBreakerOpen,
            boolean commandsBreakerOpen, int shards) {
        this(generation, keys, checksBreakerOpen, commandsBreakerOpen, shards, null, Losses.NONE);
    }

    /** Whether either circuit breaker is open. */
    public boolean breakerOpen() {
        return checksBreakerOpen || commandsBreakerOpen;
    }

    /**
     * An instance's copy of the shared bits, which answers the keys it holds without asking the store.
     *
     * @param generation    the generation it copies, as {@code generation} above with the number of the build
     *                      after {@code #} (e.g. {@code v1.b19531.k7.s*.n1#3}); {@code null} while it holds none
     * @param answering     whether it answers checks: it was read whole from the store since that build went live
     * @param lastRead      when it last finished reading the store's bits whole; {@code null} before the first time
     * @param answeredHere  checks it answered ("might contain") with no round trip to the store
     * @param sentToStore   checks sent to the store: keys it lacks, and every check while it is not answering
     * @param absentKeys    who answers a key the copy lacks: {@code lease} (the copy, with no command, while a lease
     *                      holds: {@code redis.near-copy: leased}), {@code barrier} (the copy, once a barrier showed it
     *                      holds every add the store processed before the check), or {@code store} (one read per key)
     * @param absentKeysToStoreSince for a copy that reads in order, since when absent keys go to the store; {@code null}
     *                      while barriers answer them, or when it does not read in order
     * @param absentKeysReason why absent keys go to the store, for a copy that reads in order and has been out of step
     *                      for longer than a refresh interval; {@code null} otherwise
     * @param rejectedHere  checks it answered "absent" after a barrier, with no read of the key's bits in the store
     * @param bytes         heap the copy takes now: 0 while it holds none
     */
    public record NearCopy(@Nullable String generation, boolean answering, @Nullable Instant lastRead,
            long answeredHere, long sentToStore, String absentKeys, @Nullable Instant absentKeysToStoreSince,
            @Nullable String absentKeysReason, long rejectedHere, long bytes) {
    }

    /**
     * Adds the store acknowledged and then lost (a failover to a replica that had not received them, a restart from
     * an older file), as this instance found them, and their repair.
     *
     * @param detected     losses found since this instance started
     * @param replayedKeys keys this instance wrote again from its replay log
     * @param repairs      repairs completed: the filter was trusted again after a loss
     * @param repairTime   how long the completed repairs took, together
     * @param loggedKeys   keys the replay log holds now
     * @param lastDetected when the last loss was found; {@code null} before the first
     * @param repairingSince when the repair under way began; {@code null} while none is
     * @param warning      for a filter filled by puts alone that lost adds: which keys may be missing and what to do,
     *                     until the application restarts; {@code null} otherwise
     */
    public record Losses(long detected, long replayedKeys, long repairs, Duration repairTime, long loggedKeys,
            @Nullable Instant lastDetected, @Nullable Instant repairingSince, @Nullable String warning) {

        /** No loss found, nothing logged. */
        public static final Losses NONE = new Losses(0, 0, 0, Duration.ZERO, 0, null, null, null);
    }
}
