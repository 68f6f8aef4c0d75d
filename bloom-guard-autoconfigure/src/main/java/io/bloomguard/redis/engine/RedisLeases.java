package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The leased near copy ({@code redis.near-copy: leased}): a copy in step with Redis ({@link RedisCopyInStep}) that
 * answers a key it lacks with no command to Redis while it holds a {@link NearCopyLease} on the key's shard, because
 * every writer waits before its commit until such a lease has lapsed.
 *
 * <p>Writes pay only while someone leases. Each shard's metadata holds a state ({@link LeaseState}), switched by
 * {@link #SWITCH}, which announces it on the shard's channel in the order Redis processed it: an instance whose
 * absent keys go to Redis in a flood ({@value #FLOOD_PER_SECOND} a second) switches it {@code on}; readers renew
 * leases only in {@code on}; after {@value #IDLE_ROUNDS} refresh intervals in which no instance asked for leases, one
 * switches it to {@code draining}, and once it has stayed so for the writers' wait, {@code off}. The add script reads
 * the state in the same step as it sets the bits ({@link io.bloomguard.redis.kind.AddReply#writersWait()}), and the
 * writer waits in {@code on}, {@code draining} or when none is stored; in {@code off} no lease granted before the add
 * can still hold, and one granted after it holds the add.
 *
 * <p>Usage: {@code Boolean absent = leases.answer(copy, key, current); if (absent == null) ...barrier or Redis...}
 */
final class RedisLeases {

    private static final Log logger = LogFactory.getLog(RedisLeases.class);

    /** ρ: how far an instance's monotonic clock may run fast or slow against true time. */
    static final double CLOCK_RATE = 0.01;
    /** Absent keys one instance sends to Redis within a second that switch leases on. */
    static final int FLOOD_PER_SECOND = 100;
    /** Refresh intervals with no instance asking for leases before a shard drains. */
    static final int IDLE_ROUNDS = 3;

    /**
     * Switches a shard's lease state and announces it on its channel, before storing it (a publish refused fails the
     * switch, which changes nothing). KEYS: meta, the shard's channel. ARGV: the publish command, the shard, the
     * operation, the lease in milliseconds, the state expected, the demand expected. {@code on} counts a demand and
     * switches on unless it is (-1 when the filter is leased with another duration: writers would wait too little);
     * {@code drain} and {@code off} switch only from the state expected ({@code drain} only while no demand came
     * since). Returns 1 when switched or on, 0 when not (no filter, or another instance switched first).
     */
    static final LuaScript SWITCH = LuaScript.of("lease-switch", LuaScript.Result.INTEGER, """
            local meta = KEYS[1]
            if not redis.call('HGET', meta, 'live') then return 0 end
            local now = redis.call('HGET', meta, 'lease') or ''
            local demand = redis.call('HGET', meta, 'lease-demand') or '0'
            local state
            if ARGV[3] == 'on' then
              redis.call('HSET', meta, 'lease-demand', tonumber(demand) + 1)
              if now == 'on ' .. ARGV[4] then return 1 end
              local ms = string.match(now, ' (%d+)$')
              if ms and ms ~= ARGV[4] then return -1 end
              state = 'on ' .. ARGV[4]
            else
              if now ~= ARGV[5] then return 0 end
              if ARGV[3] == 'drain' then
                if demand ~= ARGV[6] then return 0 end
                local n = tonumber(redis.call('HGET', meta, 'lease-switches') or '0') + 1
                redis.call('HSET', meta, 'lease-switches', n)
                state = 'draining ' .. n .. ' ' .. ARGV[4]
              else
                state = 'off'
              end
            end
            redis.call(ARGV[1], KEYS[2], 'L ' .. ARGV[2] .. ' ' .. state)
            redis.call('HSET', meta, 'lease', state)
            return 1
            """);

    /**
     * A shard's lease state and demand count, {@code "<state>|<demand>"}, or {@code "-"} when it holds no filter.
     * KEYS: meta.
     */
    static final LuaScript STATE = LuaScript.of("lease-state", LuaScript.Result.BULK, """
            if not redis.call('HGET', KEYS[1], 'live') then return '-' end
            return (redis.call('HGET', KEYS[1], 'lease') or '') .. '|'
              .. (redis.call('HGET', KEYS[1], 'lease-demand') or '0')
            """);

    private final String name;
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
    private final AtomicBoolean switchingOn = new AtomicBoolean();
    private volatile boolean flooded;
    /** Whether a lookup was answered under a lease since the last maintenance: this instance wants leases. */
    private volatile boolean leased;
    private final AtomicBoolean mismatchLogged = new AtomicBoolean();
    /** Per shard, what maintenance last saw; the maintenance thread's alone. */
    private final Map<Integer, Watch> watches = new HashMap<>();

    RedisLeases(String name, RedisFilterKeys keys, RedisFilterCommands commands, RedisAddFeed feed, Duration read,
            LongAdder rejected, BiConsumer<RedisCopiedBuild, String> outOfStep) {
        this.name = name;
        this.keys = keys;
        this.commands = commands;
        this.feed = feed;
        this.times = new NearCopyLease.LeaseTimes(read, CLOCK_RATE);
        this.on = LeaseState.on(read);
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
        if (!leased) {
            leased = true; // read-mostly: no write while it stays set
        }
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

    /** A lookup found no lease: it counts towards a flood, and renews the lease when the shard is on. */
    private void wanted(RedisCopiedBuild copy, int shard, Supplier<@Nullable RedisCopiedBuild> current) {
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
            flooded = true;
            if (switchingOn.compareAndSet(false, true)) {
                switchOn(leases.shards());
            }
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

    /** Switches every shard on, in the background of the lookup that saw the flood. */
    private void switchOn(int shards) {
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        try {
            for (int shard = 0; shard < shards; shard++) {
                replies.add(send(shard, "on", on.read(), LeaseState.NONE, ""));
            }
        }
        catch (RuntimeException ex) {
            switchingOn.set(false);
            return;
        }
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> {
            switchingOn.set(false);
            if (failure == null && replies.stream().anyMatch(reply -> ((Long) reply.join()) < 0)) {
                differentDuration();
            }
        });
    }

    private CompletableFuture<Object> send(int shard, String operation, @Nullable Duration read, LeaseState expected,
            String demand) {
        List<String> names = List.of(keys.meta(shard), keys.adds(shard));
        List<String> args = List.of(feed.publishCommand(), Integer.toString(shard), operation,
                Long.toString((read != null) ? read.toMillis() : 0), expected.value(), demand);
        return commands.send(port -> port.eval(SWITCH, names, args));
    }

    private void differentDuration() {
        if (mismatchLogged.compareAndSet(false, true)) {
            logger.warn("Filter '" + name + "': other instances lease its near copy for another duration than"
                    + " bloom-guard.redis.near-copy-lease (" + times.read().toMillis() + " ms); this instance takes no"
                    + " lease until they agree: set the same value on every instance");
        }
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

    /** During a whole read, after the barrier: each shard's state, which later announcements keep current. */
    void readStates(RedisCopiedBuild copy) {
        RedisCopyLeases leases = copy.leases;
        if (leases == null) {
            return;
        }
        for (int shard = 0; shard < leases.shards(); shard++) {
            String[] stored = state(shard);
            leases.state(shard, (stored == null) ? LeaseState.NONE : LeaseState.of(stored[0]));
        }
    }

    private String @Nullable [] state(int shard) {
        List<String> meta = List.of(keys.meta(shard));
        String reply = new String((byte[]) commands.call(port -> port.eval(STATE, meta, List.of())),
                StandardCharsets.UTF_8);
        return reply.equals("-") ? null : reply.split("\\|", -1);
    }

    /**
     * How long a writer waits before its commit after an add that found the lease state not off
     * ({@link io.bloomguard.redis.kind.AddReply#writersWait()}): a lease of {@code lease} (the state's; {@code null}
     * when it names none) or of this instance's, whichever is longer, and the clock-rate margin.
     */
    Duration writeWait(@Nullable Duration lease) {
        return (lease != null && lease.compareTo(times.read()) > 0)
                ? new NearCopyLease.LeaseTimes(lease, CLOCK_RATE).write() : times.write();
    }

    /**
     * Every refresh interval, on the maintenance thread: asks for leases on each shard while this instance used them
     * or saw a flood, else drains a shard no instance asked for in {@value #IDLE_ROUNDS} intervals, and switches off
     * one that stayed draining for the writers' wait.
     */
    void maintain(int shards) {
        boolean demand = leased | flooded;
        leased = false;
        flooded = false;
        try {
            for (int shard = 0; shard < shards; shard++) {
                if (demand) {
                    if ((Long) commands.await(send(shard, "on", on.read(), LeaseState.NONE, "")) < 0) {
                        differentDuration();
                    }
                    watches.remove(shard);
                }
                else {
                    watch(shard);
                }
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Filter '" + name + "': the lease states could not be read or switched now", ex);
        }
    }

    private void watch(int shard) {
        String[] stored = state(shard);
        long seenAt = System.nanoTime();
        if (stored == null) {
            watches.remove(shard);
            return;
        }
        LeaseState state = LeaseState.of(stored[0]);
        String demand = stored[1];
        Watch last = watches.get(shard);
        if (last == null || !last.state.equals(state) || !last.demand.equals(demand)) {
            watches.put(shard, new Watch(state, demand, seenAt, 0));
            return;
        }
        if (state.isOn()) {
            if (last.rounds + 1 >= IDLE_ROUNDS) {
                commands.await(send(shard, "drain", state.read(), state, demand));
                watches.remove(shard);
            }
            else {
                watches.put(shard, new Watch(state, demand, last.seenAt, last.rounds + 1));
            }
        }
        else if (!state.isOff() && seenAt - last.seenAt >= writeWait(state.read()).toNanos()) {
            // Seen draining (or never switched) since at least the writers' wait: every lease granted before the
            // switch has lapsed, and no lease was granted since.
            commands.await(send(shard, "off", null, state, ""));
            watches.remove(shard);
        }
    }

    /** What maintenance last saw of a shard, since when, for how many rounds unchanged. */
    private record Watch(LeaseState state, String demand, long seenAt, int rounds) {
    }
}
