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

/**
 * Switches a leased filter's lease state ({@link LeaseState}), one per shard, so that writes pay only while someone
 * leases: {@code on} when this instance sees a flood ({@link #flood}), and again every refresh interval while it uses
 * leases or sees one, counting a demand; {@code draining} once no instance's demand moved for {@value #IDLE_ROUNDS}
 * refresh intervals; {@code off} once it stayed draining (or was never switched) for the writers' wait. Each switch
 * is announced on the shard's channel in the order Redis processed it ({@link #SWITCH}).
 *
 * <p>Usage: {@code leaseSwitch.flood(shards); ... every refresh interval: leaseSwitch.maintain(shards);}
 */
final class RedisLeaseSwitch {

    private static final Log logger = LogFactory.getLog(RedisLeaseSwitch.class);

    /** Refresh intervals with no instance asking for leases before a shard drains. */
    static final int IDLE_ROUNDS = 3;

    /**
     * Switches a shard's lease state and announces it on its channel, with the command the metadata names for the
     * copies that read in order ({@link io.bloomguard.redis.kind.RedisScripts#PUBLISH_ADDS}; none asked: nothing to
     * tell, a copy that subscribes later reads the state), before storing it (a publish refused fails the switch, which
     * changes nothing). KEYS: meta, the shard's channel. ARGV: the shard, the operation, the lease in milliseconds, the
     * state expected, the demand expected. {@code on} counts a demand and switches on unless it is (-1 when the filter
     * is leased with another duration: writers would wait too little), and announces it again when it is (a copy that
     * missed it learns it within a refresh interval); {@code drain} and {@code off} switch only from the state
     * expected ({@code drain} only while no demand came since). Returns 1 when switched or on, 0 when not (no filter,
     * or another instance switched first).
     */
    static final LuaScript SWITCH = LuaScript.of("lease-switch", LuaScript.Result.INTEGER, """
            local meta = KEYS[1]
            if not redis.call('HGET', meta, 'live') then return 0 end
            local publish = redis.call('HGET', meta, 'publish')
            local now = redis.call('HGET', meta, 'lease') or ''
            local demand = redis.call('HGET', meta, 'lease-demand') or '0'
            local state
            if ARGV[2] == 'on' then
              redis.call('HSET', meta, 'lease-demand', tonumber(demand) + 1)
              if now == 'on ' .. ARGV[3] then
                if publish then redis.call(publish, KEYS[2], 'L ' .. ARGV[1] .. ' ' .. now) end
                return 1
              end
              local ms = string.match(now, ' (%d+)$')
              if ms and ms ~= ARGV[3] then return -1 end
              state = 'on ' .. ARGV[3]
            else
              if now ~= ARGV[4] then return 0 end
              if ARGV[2] == 'drain' then
                if demand ~= ARGV[5] then return 0 end
                local n = tonumber(redis.call('HGET', meta, 'lease-switches') or '0') + 1
                redis.call('HSET', meta, 'lease-switches', n)
                state = 'draining ' .. n .. ' ' .. ARGV[3]
              else
                state = 'off'
              end
            end
            if publish then redis.call(publish, KEYS[2], 'L ' .. ARGV[1] .. ' ' .. state) end
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
    private final NearCopyLease.LeaseTimes times;
    /** The state this instance switches on: {@code on <its lease>}. */
    private final LeaseState on;
    private final AtomicBoolean switchingOn = new AtomicBoolean();
    private volatile boolean flooded;
    /** Whether a lookup was answered under a lease since the last maintenance: this instance wants leases. */
    private volatile boolean leased;
    private final AtomicBoolean mismatchLogged = new AtomicBoolean();
    /** Per shard, what maintenance last saw; the maintenance thread's alone. */
    private final Map<Integer, Watch> watches = new HashMap<>();

    RedisLeaseSwitch(String name, RedisFilterKeys keys, RedisFilterCommands commands,
            NearCopyLease.LeaseTimes times) {
        this.name = name;
        this.keys = keys;
        this.commands = commands;
        this.times = times;
        this.on = LeaseState.on(times.read());
    }

    /** The state in which this instance's readers take leases. */
    LeaseState on() {
        return on;
    }

    /** A lookup was answered under a lease: demand, told at the next maintenance. */
    void used() {
        if (!leased) {
            leased = true; // read-mostly: no write while it stays set
        }
    }

    /** This instance sees a flood with leases not on: switches every shard on, in the background of the lookup. */
    void flood(int shards) {
        flooded = true;
        if (switchingOn.compareAndSet(false, true)) {
            switchOn(shards);
        }
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
        // No publish command from this instance: one without a subscriber connection (Jedis, a drop) must still
        // switch off, or every put would wait for leases no copy can take.
        List<String> args = List.of(Integer.toString(shard), operation,
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

    /** During a whole read, after the barrier: each shard's state, which later announcements keep current. */
    void readStates(RedisCopiedBuild copy) {
        RedisCopyLeases leases = copy.leases;
        if (leases == null) {
            return;
        }
        for (int shard = 0; shard < leases.shards(); shard++) {
            LeaseState before = leases.state(shard);
            String[] stored = state(shard);
            // Unless an announcement came meanwhile: it may be newer than the read, and no later one would correct it.
            leases.stateUnlessAnnounced(shard, before, (stored == null) ? LeaseState.NONE : LeaseState.of(stored[0]));
        }
    }

    private String @Nullable [] state(int shard) {
        List<String> meta = List.of(keys.meta(shard));
        String reply = new String((byte[]) commands.call(port -> port.eval(STATE, meta, List.of())),
                StandardCharsets.UTF_8);
        return reply.equals("-") ? null : reply.split("\\|", -1);
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
        else if (!state.isOff() && seenAt - last.seenAt >= times.write(state.read()).toNanos()) {
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
