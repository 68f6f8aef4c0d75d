package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.RedisScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Keeps a filter's {@link RedisNearCopy} in step with Redis ({@code redis.near-copy: ordered}), so that it answers the
 * keys it lacks too: before each whole read it asks the add scripts to publish ({@link RedisScripts#PUBLISH_ADDS}) and
 * subscribes to the shards' channels ({@link RedisAddFeed}); the copy is in step once read whole within one subscriber
 * epoch, and applies every add published since, in order; a swap, a bitmap gone or a dropped connection puts it out of
 * step until the next read. In step, a key it lacks is answered after a barrier ({@link RedisOrderedCheck}).
 *
 * <p>Why "absent" is then Redis's answer: every add Redis processed before the subscription is in the whole read that
 * follows it; every add after it reaches the copy in the order Redis processed it; and a barrier sent after a check
 * began comes back after every add processed before the check began.
 */
final class RedisCopyInStep {

    private static final Log logger = LogFactory.getLog(RedisCopyInStep.class);

    /** Refresh intervals after a failed subscription before the next try (each try reads the bits whole). */
    static final int REFRESHES_PER_SYNC_RETRY = 10;

    private final String name;
    private final RedisAddFeed feed;
    private final RedisFilterKeys keys;
    private final RedisFilterCommands commands;
    private final Duration commandTimeout;
    private final Duration refreshInterval;
    private final long syncRetryNanos;
    private final LongAdder rejectedHere = new LongAdder();
    /** Since when absent keys go to Redis, and why; {@code null} while in step. */
    private volatile @Nullable Instant outOfStepSince = Instant.now();
    private volatile String outOfStepReason = "not read yet";
    /** With {@code redis.near-copy: leased}: answers absent keys with no command while a lease holds; else null. */
    private final @Nullable RedisLeases leases;

    /** @param lease with {@code redis.near-copy: leased}, how long a lease holds; {@code null} for {@code ordered} */
    public RedisCopyInStep(String name, RedisAddFeed feed, RedisFilterKeys keys, RedisFilterCommands commands,
            Duration commandTimeout, Duration refreshInterval, @Nullable Duration lease) {
        this.name = name;
        this.feed = feed;
        this.keys = keys;
        this.commands = commands;
        this.commandTimeout = commandTimeout;
        this.refreshInterval = refreshInterval;
        this.syncRetryNanos = refreshInterval.multipliedBy(REFRESHES_PER_SYNC_RETRY).toNanos();
        this.leases = (lease != null)
                ? new RedisLeases(name, keys, commands, feed, lease, rejectedHere, this::outOfStep) : null;
    }

    /** The leases of a leased copy; {@code null} for {@code ordered}. */
    @Nullable RedisLeases leases() {
        return leases;
    }

    /**
     * The check of keys {@code copy} lacks, by a barrier, when it is in step; {@code null} when it is not.
     *
     * @param current the copy the filter holds at the moment of asking, which the check must still be
     */
    @Nullable RedisOrderedCheck check(RedisCopiedBuild copy, Supplier<@Nullable RedisCopiedBuild> current,
            LongAdder answeredHere) {
        long epoch = feed.epoch();
        if (copy.syncedEpoch != epoch) {
            return null;
        }
        RedisLiveProbe probe = copy.probe(keys);
        return new RedisOrderedCheck(feed, copy.identity, keys, epoch,
                () -> current.get() == copy && copy.syncedEpoch == epoch, copy.bits, rejectedHere, answeredHere,
                port -> probe.stillLive(port).thenApply(live -> {
                    if (!live) {
                        outOfStep(copy, "the build it copies is gone from Redis (flushed, evicted or deleted)");
                    }
                    return live;
                }));
    }

    /**
     * What the subscriber connection hands over for one of the filter's shards, in the order Redis processed it:
     * {@code "<bitmap> <position> ..."}, what an add set, {@code "r <bitmap> <position> ..."}, the counters a remove
     * lowered, or {@code "-"}, a swap or a bitmap gone.
     */
    void received(@Nullable RedisCopiedBuild copy, byte[] payload) {
        if (copy == null) {
            return;
        }
        String text = new String(payload, StandardCharsets.US_ASCII);
        if (text.startsWith("L ")) {
            if (leases != null) {
                leases.announced(copy, text);
            }
            return;
        }
        if (text.equals("-")) {
            outOfStep(copy, "a generation was swapped in, or the bitmap is gone");
            return;
        }
        String[] parts = text.split(" ");
        boolean remove = parts[0].equals("r");
        int from = remove ? 2 : 1;
        int shard = copy.shardOf(parts[from - 1]);
        if (shard < 0) {
            return; // another generation's: a copy of that one is told when it is swapped in
        }
        if (remove) {
            copy.removed(shard, parts, from);
        }
        else {
            copy.added(shard, parts, from);
        }
    }

    /** At each refresh: whether {@code copy} must be read whole again to be in step, noting a dropped connection. */
    boolean wantsRead(RedisCopiedBuild copy) {
        long epoch = feed.epoch();
        if (copy.answering && copy.syncedEpoch >= 0 && copy.syncedEpoch != epoch) {
            outOfStep(copy, "the subscriber connection dropped");
        }
        return copy.syncedEpoch != epoch && feed.unsupported() == null && System.nanoTime() - copy.nextSync >= 0;
    }

    /**
     * Before a whole read of {@code copy}: publishing asked for, channels subscribed.
     *
     * @return the epoch the read may put it in step within, or -1 when it cannot (tried again later)
     */
    long beforeRead(RedisCopiedBuild copy, java.util.function.Consumer<byte[]> handler) {
        copy.readBegins();
        try {
            List<String> channels = new ArrayList<>();
            for (int shard = 0; shard < copy.identity.shards(); shard++) {
                channels.add(keys.adds(shard));
            }
            long epoch = feed.subscribe(channels, handler, commandTimeout);
            List<String> publishWith = List.of(feed.publishCommand());
            for (int shard = 0; shard < copy.identity.shards(); shard++) {
                List<String> meta = List.of(keys.meta(shard));
                long set = (Long) commands.call(port -> port.eval(RedisScripts.PUBLISH_ADDS, meta, publishWith));
                if (set != 1) {
                    throw new IllegalStateException("shard " + shard + " holds no filter");
                }
            }
            return epoch;
        }
        catch (RuntimeException ex) {
            outOfStep(copy, "subscribing failed: " + ex.getMessage());
            copy.nextSync = System.nanoTime() + syncRetryNanos; // not a whole read every refresh
            logger.debug("Filter '" + name + "': the near copy cannot read in order now; absent keys go to Redis", ex);
            return -1;
        }
    }

    /**
     * After a whole read of {@code copy} that {@link #beforeRead} began within {@code epoch}: a barrier on every shard's
     * connection first, so that every change Redis processed before the read's last chunk has arrived (one that came
     * after the chunk would otherwise be taken for one it lacks), then the metadata read to see that the copy's
     * generation and layers are still the live ones, then the adds that arrived meanwhile applied again.
     */
    void afterRead(RedisCopiedBuild copy, long epoch, int changesBefore) {
        boolean passed = epoch >= 0 && barrier(copy) && stillLive(copy) && leaseStatesRead(copy);
        copy.readEnds();
        if (passed && feed.epoch() == epoch && copy.markInStep(epoch, changesBefore) && outOfStepSince != null) {
            outOfStepSince = null;
            logger.info("Filter '" + name + "': near copy in step with Redis; absent keys are answered here after a"
                    + " barrier");
        }
    }

    /**
     * Whether the metadata still names the copy's generation, with as many layers: a layer added, or a generation
     * swapped in, before the copy subscribed published its {@code "-"} before the copy listened, and adds to the new
     * layer or bitmap would be taken for another generation's and left out.
     */
    private boolean stillLive(RedisCopiedBuild copy) {
        try {
            java.util.Map<String, String> meta = commands.call(port -> port.hashGetAll(keys.meta(0)));
            String layers = meta.getOrDefault("layers", "1");
            return copy.identity.fingerprint().equals(meta.get("live"))
                    && (!copy.generation.hasLayers() || layers.equals(Integer.toString(copy.parts())));
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** A leased copy's lease states, read after the barrier: the announcements that follow keep them current. */
    private boolean leaseStatesRead(RedisCopiedBuild copy) {
        if (leases == null) {
            return true;
        }
        try {
            leases.readStates(copy);
            return true;
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private boolean barrier(RedisCopiedBuild copy) {
        List<java.util.concurrent.CompletableFuture<Boolean>> barriers = new ArrayList<>();
        for (int shard = 0; shard < copy.identity.shards(); shard++) {
            barriers.add(feed.barrier(keys.adds(shard)));
        }
        try {
            for (java.util.concurrent.CompletableFuture<Boolean> each : barriers) {
                if (!each.get(commandTimeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    return false;
                }
            }
            return true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
        catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
            return false;
        }
    }

    /** Whether {@code copy} answers absent keys now. */
    boolean inStep(@Nullable RedisCopiedBuild copy) {
        return copy != null && copy.answering && copy.syncedEpoch == feed.epoch();
    }

    /** Since when absent keys go to Redis; {@code null} while in step. */
    @Nullable Instant outOfStepSince(@Nullable RedisCopiedBuild copy) {
        if (inStep(copy)) {
            return null;
        }
        Instant since = outOfStepSince;
        return (since != null) ? since : Instant.now();
    }

    /** Why absent keys go to Redis, once they have for longer than a refresh interval (a read puts it back in step). */
    @Nullable String outOfStepReason(@Nullable RedisCopiedBuild copy) {
        Instant since = outOfStepSince(copy);
        if (since == null || since.isAfter(Instant.now().minus(refreshInterval))) {
            return null;
        }
        String unsupported = feed.unsupported();
        return (unsupported != null) ? unsupported : (copy == null) ? "no live generation to copy" : outOfStepReason;
    }

    long rejectedHere() {
        return rejectedHere.sum();
    }

    private void outOfStep(RedisCopiedBuild copy, String reason) {
        copy.markOutOfStep();
        outOfStepReason = reason; // the latest: what keeps it out of step now
        if (outOfStepSince == null) {
            outOfStepSince = Instant.now();
        }
    }
}
