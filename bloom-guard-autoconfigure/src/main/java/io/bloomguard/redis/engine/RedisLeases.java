package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The leased near copy ({@code redis.near-copy: leased}): a copy in step with Redis ({@link RedisCopyInStep}) that
 * answers a key it lacks with no command to Redis while it holds a {@link NearCopyLease} on the key's shard, because
 * every writer waits before its commit until such a lease has lapsed.
 *
 * <p>Writes pay only while someone leases. Each shard's metadata holds a state ({@link LeaseState},
 * {@link RedisLeaseSwitch}), announced on the shard's channel in the order Redis processed it: an instance whose
 * absent keys go to Redis in a flood ({@value #FLOOD_PER_SECOND} a second) switches it {@code on}; readers renew
 * leases only in {@code on}; once no instance asks for leases it drains, then goes {@code off}. The add script reads
 * the state in the same step as it sets the bits ({@link io.bloomguard.redis.kind.AddReply#writersWait()}), and the
 * writer waits in {@code on}, {@code draining} or when none is stored; in {@code off} no lease granted before the add
 * can still hold, and one granted after it holds the add.
 *
 * <p>Usage: {@code Boolean absent = leases.answer(copy, key, current); if (absent == null) ...barrier or Redis...}
 */
final class RedisLeases {

    /** ρ: how far an instance's monotonic clock may run fast or slow against true time. */
    static final double CLOCK_RATE = 0.01;
    /** Absent keys one instance sends to Redis within a second that switch leases on. */
    static final int FLOOD_PER_SECOND = 100;
    private final RedisFilterKeys keys;
    private final RedisFilterCommands commands;
    private final RedisAddFeed feed;
    private final NearCopyLease.LeaseTimes times;
    private final LeaseState on;
    private final long renewBefore;
    /** A copy that cannot answer any more (a {@code FLUSHALL}): out of step, with why. */
    private final BiConsumer<RedisCopiedBuild, String> outOfStep;
    private final LongAdder rejected;
    private final AtomicLong floodWindow = new AtomicLong(System.nanoTime());
    private final LongAdder unleased = new LongAdder();
    /** The lease states: switched on by a flood, off once none is wanted. */
    private final RedisLeaseSwitch states;

    RedisLeases(String name, RedisFilterKeys keys, RedisFilterCommands commands, RedisAddFeed feed, Duration read,
            LongAdder rejected, BiConsumer<RedisCopiedBuild, String> outOfStep) {
        this.keys = keys;
        this.commands = commands;
        this.feed = feed;
        this.times = new NearCopyLease.LeaseTimes(read, CLOCK_RATE);
        this.states = new RedisLeaseSwitch(name, keys, commands, times);
        this.on = states.on();
        this.renewBefore = read.toNanos() / 2;
        this.rejected = rejected;
        this.outOfStep = outOfStep;
    }

    /** The leases of a new copy of {@code shards} shards. */
    RedisCopyLeases forCopy(int shards) {
        return new RedisCopyLeases(shards, times, System::nanoTime);
    }

    /**
     * A lookup of {@code key} in {@code copy}, taken in this order: the lease on its shard, then the epoch and the copy
     * in step in it, then the bits, then a fresh clock read. {@code true} when the copy holds the key; {@code false}
     * when it lacks it and the lease holds; {@code null} when no lease holds (the copy, a barrier or Redis answers).
     *
     * @param current the filter's copy now: {@code copy} must still be it
     */
    @Nullable Boolean answer(RedisCopiedBuild copy, Object key, Supplier<@Nullable RedisCopiedBuild> current) {
        RedisCopyLeases leases = copy.leases;
        if (leases == null) {
            return null;
        }
        int shard = (leases.shards() == 1) ? 0 : copy.identity.locate(key).shard();
        NearCopyLease lease = leases.lease(shard);
        NearCopyLease.Held held = lease.hold();
        long epoch = feed.epoch();
        if (!held.granted() || held.epoch() != epoch || copy.syncedEpoch != epoch || current.get() != copy) {
            wanted(copy, shard, current);
            return null;
        }
        if (copy.bits.mightContain(key)) {
            return true;
        }
        long left = lease.left(held);
        if (left <= 0) {
            wanted(copy, shard, current);
            return null;
        }
        if (left < renewBefore) {
            renew(copy, shard, current); // demand drives renewal: an idle instance sends nothing
        }
        states.used();
        rejected.increment();
        return false;
    }

    /** {@link #answer} for each key, or {@code null} for all of them when one has no lease. */
    boolean @Nullable [] answers(RedisCopiedBuild copy, List<?> keys, Supplier<@Nullable RedisCopiedBuild> current) {
        boolean[] present = new boolean[keys.size()];
        for (int i = 0; i < present.length; i++) {
            Boolean answer = answer(copy, keys.get(i), current);
            if (answer == null) {
                return null;
            }
            present[i] = answer;
        }
        return present;
    }

    /**
     * A lookup found no lease: it counts towards a flood, and renews the lease when the shard is on. Only for a copy in
     * step, which could take one: writers must not wait for leases no copy here can take (no subscriber connection).
     */
    private void wanted(RedisCopiedBuild copy, int shard, Supplier<@Nullable RedisCopiedBuild> current) {
        if (copy.syncedEpoch != feed.epoch()) {
            return;
        }
        long now = System.nanoTime();
        long start = floodWindow.get();
        if (now - start > 1_000_000_000L && floodWindow.compareAndSet(start, now)) {
            unleased.reset();
        }
        unleased.increment();
        RedisCopyLeases leases = copy.leases;
        if (leases.state(shard).equals(on)) {
            renew(copy, shard, current);
        }
        else if (unleased.sum() >= FLOOD_PER_SECOND) {
            states.flood(leases.shards());
        }
    }

    /** A barrier and a probe that the build is still live, both sent after the clock was read: a lease from it. */
    private void renew(RedisCopiedBuild copy, int shard, Supplier<@Nullable RedisCopiedBuild> current) {
        RedisCopyLeases leases = copy.leases;
        long epoch = feed.epoch();
        if (copy.syncedEpoch != epoch || !leases.startRenewal(shard)) {
            return;
        }
        NearCopyLease lease = leases.lease(shard);
        long sentAt = lease.beforeBarrier();
        CompletableFuture<Boolean> barrier;
        try {
            barrier = feed.barrierNow(keys.adds(shard));
        }
        catch (RuntimeException ex) {
            leases.renewalEnded(shard);
            return;
        }
        RedisLiveProbe probe = copy.probe(keys);
        CompletableFuture<Boolean> live = commands.sendCheck(probe::stillLive);
        barrier.thenCombine(live, (passed, stillLive) -> {
            if (!stillLive) {
                outOfStep.accept(copy, "the build it copies is gone from Redis (flushed, evicted or deleted)");
            }
            return passed && stillLive;
        }).whenComplete((passed, failure) -> {
            leases.renewalEnded(shard);
            if (failure == null && passed && feed.epoch() == epoch && copy.syncedEpoch == epoch
                    && current.get() == copy && leases.state(shard).equals(on)) {
                lease.granted(sentAt, epoch);
            }
        });
    }

    /** A shard's state announced on its channel ({@code "L <shard> <state>"}), in the order Redis processed it. */
    void announced(RedisCopiedBuild copy, String text) {
        RedisCopyLeases leases = copy.leases;
        int space = text.indexOf(' ', 2);
        int shard = Integer.parseInt(text.substring(2, space));
        if (leases != null && shard < leases.shards()) {
            leases.state(shard, LeaseState.of(text.substring(space + 1)));
        }
    }

    /**
     * How long a writer waits before its commit after an add that found the lease state not off
     * ({@link io.bloomguard.redis.kind.AddReply#writersWait()}): a lease of {@code lease} (the state's; {@code null}
     * when it names none) or of this instance's, whichever is longer, and the clock-rate margin.
     */
    Duration writeWait(@Nullable Duration lease) {
        return times.write(lease);
    }

    /** During a whole read, after the barrier: each shard's state ({@link RedisLeaseSwitch#readStates}). */
    void readStates(RedisCopiedBuild copy) {
        states.readStates(copy);
    }

    /** Every refresh interval, on the maintenance thread: {@link RedisLeaseSwitch#maintain}. */
    void maintain(int shards) {
        states.maintain(shards);
    }

}
