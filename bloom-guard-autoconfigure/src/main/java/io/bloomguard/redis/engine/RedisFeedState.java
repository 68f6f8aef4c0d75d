package io.bloomguard.redis.engine;

import io.bloomguard.core.SharedFeedState;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A filter's change feed state in one Redis hash beside its metadata (one key, so one slot on a Cluster): the lease
 * of the instance that consumes the feed, timed by the server's clock so that the instances' clocks need not
 * agree, and the position and freshness that only the lease holder writes.
 */
final class RedisFeedState implements SharedFeedState {

    /**
     * Takes or renews the lease. KEYS: the feed hash. ARGV: instance, time to live in milliseconds. Returns 1 when
     * the instance holds it now.
     */
    static final LuaScript LEAD = LuaScript.of("feed-lead", LuaScript.Result.INTEGER, """
            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            local leader = redis.call('HGET', KEYS[1], 'leader')
            local expires = tonumber(redis.call('HGET', KEYS[1], 'lease-expires') or '0')
            if leader == ARGV[1] or not leader or expires <= now then
              redis.call('HSET', KEYS[1], 'leader', ARGV[1], 'lease-expires', now + tonumber(ARGV[2]))
              return 1
            end
            return 0
            """);

    /**
     * Saves the position (if given) and freshness, for the lease holder only. KEYS: the feed hash. ARGV: instance,
     * current-as-of in epoch milliseconds, position or empty. Returns 1 when saved.
     */
    static final LuaScript SAVE = LuaScript.of("feed-save", LuaScript.Result.INTEGER, """
            if redis.call('HGET', KEYS[1], 'leader') ~= ARGV[1] then return 0 end
            redis.call('HSET', KEYS[1], 'current-as-of', ARGV[2])
            if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'position', ARGV[3]) end
            return 1
            """);

    /** Gives the lease up. KEYS: the feed hash. ARGV: instance. */
    static final LuaScript RELEASE = LuaScript.of("feed-release", LuaScript.Result.INTEGER, """
            if redis.call('HGET', KEYS[1], 'leader') ~= ARGV[1] then return 0 end
            return redis.call('HDEL', KEYS[1], 'leader', 'lease-expires')
            """);

    private final String key;
    private final RedisFilterCommands commands;

    RedisFeedState(RedisFilterKeys keys, RedisFilterCommands commands) {
        this.key = keys.feed();
        this.commands = commands;
    }

    @Override
    public boolean lead(String instance, Duration ttl) {
        return Long.valueOf(1).equals(commands.call(port -> port.eval(LEAD, List.of(key),
                List.of(instance, Long.toString(ttl.toMillis())))));
    }

    @Override
    public void release(String instance) {
        commands.call(port -> port.eval(RELEASE, List.of(key), List.of(instance)));
    }

    @Override
    public boolean save(String instance, @Nullable String position, Instant currentAsOf) {
        return Long.valueOf(1).equals(commands.call(port -> port.eval(SAVE, List.of(key),
                List.of(instance, Long.toString(currentAsOf.toEpochMilli()), (position == null) ? "" : position))));
    }

    @Override
    public Stored read() {
        Map<String, String> fields = commands.call(port -> port.hashGetAll(key));
        String currentAsOf = fields.get("current-as-of");
        return new Stored(fields.get("position"),
                (currentAsOf == null) ? null : Instant.ofEpochMilli(Long.parseLong(currentAsOf)),
                fields.get("leader"));
    }
}
