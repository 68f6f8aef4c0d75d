package io.bloomguard.redis.engine;

import io.bloomguard.core.SharedFilterDetails;
import io.bloomguard.core.SharedFilterStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Repairs a filter after Redis lost adds it had acknowledged ({@link RedisAcknowledgedAdds} finds them): this
 * instance's lost adds, taken from its replay log, wait for replay as adds made during an outage do
 * ({@link PendingAdds}: the filter is not trusted here until they are written), and, since the adds of instances that
 * are gone cannot be known, the filter is marked stale for every instance, so that it is rebuilt from its key source
 * and calls pass through until then. A filter filled by puts alone has no key source: it is trusted again once this
 * instance's adds are replayed, and says until the application restarts that keys other instances put may be missing.
 *
 * <p>Usage: {@code lost.check(); outage.deliver(); ... lost.settled(status);}
 */
final class RedisLostAdds {

    private static final Log logger = LogFactory.getLog(RedisLostAdds.class);

    private final String name;
    private final RedisAcknowledgedAdds acks;
    private final PendingAdds pending;
    private final RedisOutageBuffer outage;
    /** Whether the filter is filled by puts alone: it has no key source to be rebuilt from. */
    private final BooleanSupplier putsOnly;
    /** The metadata of every shard this instance may have added to. */
    private final Supplier<List<String>> metas;
    private volatile long detected;
    private volatile long replayed;
    private volatile long repairs;
    private volatile long repairNanos;
    private volatile @Nullable Instant lastDetected;
    /** Set from a loss until the filter is ready here again: the repair under way, and since when. */
    private volatile @Nullable Repair repair;
    /** For a filter filled by puts alone, once it lost adds: what an operator should know, until a restart. */
    private volatile @Nullable String warning;

    RedisLostAdds(String name, RedisAcknowledgedAdds acks, PendingAdds pending, RedisOutageBuffer outage,
            BooleanSupplier putsOnly, Supplier<List<String>> metas) {
        this.name = name;
        this.acks = acks;
        this.pending = pending;
        this.outage = outage;
        this.putsOnly = putsOnly;
        this.metas = metas;
    }

    /**
     * Compares what Redis holds with what it acknowledged and, on a loss, starts the repair.
     *
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not answer: the next check compares
     */
    void check() {
        RedisAcknowledgedAdds.Loss loss = acks.check(metas.get());
        if (loss == null) {
            return;
        }
        if (loss.own().isEmpty() && loss.othersLost() == 0) {
            pending.addLost(loss.late()); // replies under a record given up: written again, no loss found
            return;
        }
        Instant now = Instant.now();
        List<Object> keys = acks.lostKeys(loss);
        boolean whole = acks.logHoldsAll(loss);
        pending.addLost(keys); // written again by this maintenance's delivery, like adds made during an outage
        String what = describe(loss, keys.size(), whole);
        if (repair == null) {
            repair = new Repair(System.nanoTime(), now);
        }
        boolean rebuild = !putsOnly.getAsBoolean();
        String reason = "Redis lost adds it had acknowledged (" + what + ")";
        if (rebuild) {
            outage.markIncomplete(reason); // every instance passes calls through until it is rebuilt from its key source
        }
        // Counted once the filter shows the repair: whoever reads the count sees it not trusted.
        replayed += keys.size();
        lastDetected = now;
        detected++;
        if (!rebuild) {
            warning = "Redis lost adds it had acknowledged (" + what + ", found " + now + "); this instance wrote its"
                    + " own again, but keys that other instances put (or that this one put before its replay log"
                    + " reaches) may be missing and be rejected: put them again if they can be listed, or switch the"
                    + " filter to shadow (the bloomfilters endpoint's mode action) until they have been";
            logger.error("Filter '" + name + "': " + lossLine(what) + " It is filled by puts alone: this instance"
                    + " writes again the " + keys(keys.size()) + " it logged; keys other instances put may stay"
                    + " missing (its health says so until the application restarts)");
            return;
        }
        logger.error("Filter '" + name + "': " + lossLine(what) + " This instance writes again the "
                + keys(keys.size()) + " it logged and marks the filter stale, for every instance, so that it is"
                + " rebuilt from its key source (the adds of instances that are gone cannot be known otherwise); calls"
                + " pass through until then");
    }

    /** After the maintenance: a repair is complete once the filter is ready here again. */
    void settled(SharedFilterStatus status) {
        Repair current = repair;
        if (current == null || status != SharedFilterStatus.READY) {
            return;
        }
        repair = null;
        long took = System.nanoTime() - current.startNanos;
        repairs++;
        repairNanos += took;
        logger.info("Filter '" + name + "' is repaired from the loss found " + current.since + " (took "
                + Duration.ofNanos(took).toMillis() + " ms)");
    }

    /** Why the filter is not trusted while a repair runs, or the lasting warning of a puts-only filter; else null. */
    @Nullable String reason() {
        Repair current = repair;
        if (current != null) {
            return "repairing since " + current.since + ": Redis lost adds it had acknowledged (a failover or a"
                    + " restore from an older file)";
        }
        return warning;
    }

    SharedFilterDetails.Losses details() {
        Repair current = repair;
        return new SharedFilterDetails.Losses(detected, replayed, repairs, Duration.ofNanos(repairNanos),
                acks.loggedKeys(), lastDetected, (current != null) ? current.since : null, warning);
    }

    private String lossLine(String what) {
        return "Redis lost adds it had acknowledged (" + what + "): a failover to a replica that had not received"
                + " them, or a restart from an RDB or AOF file older than them.";
    }

    private static String describe(RedisAcknowledgedAdds.Loss loss, int logged, boolean whole) {
        StringBuilder what = new StringBuilder();
        if (loss.ownLost() > 0) {
            what.append(adds(loss.ownLost())).append(" of this instance's");
            if (!whole) {
                what.append(", ").append(logged).append(" keys of them still in its replay log");
            }
        }
        if (loss.othersLost() > 0) {
            what.append((what.length() > 0) ? ", and " : "").append(adds(loss.othersLost()))
                    .append(" of other instances'");
        }
        return what.toString();
    }

    private static String adds(long count) {
        return RedisOwedDelivery.adds(count);
    }

    private static String keys(long count) {
        return (count == 1) ? "1 key" : count + " keys";
    }

    private record Repair(long startNanos, Instant since) {
    }
}
