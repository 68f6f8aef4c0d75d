package io.bloomguard.redis.kind.bf;

import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.port.LuaScript;

/**
 * The Lua scripts of the native Bloom kind. {@code BF.EXISTS} answers 0 for a key that does not exist, so every check
 * asks {@code EXISTS} in the same script: a filter that is gone reads as unknown. {@code BF.INSERT ... NOCREATE}
 * never creates a filter with the server's defaults in place of one that is gone. Keys go in as their canonical text,
 * at most {@value #CHUNK} per command (Lua's {@code unpack} has a limit).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class NativeBloomScripts {

    /** Keys per {@code BF.INSERT} / {@code BF.MEXISTS} inside a script. */
    static final int CHUNK = 1000;

    private NativeBloomScripts() {
    }

    /**
     * Lua: {@code insert(key, from, count)} adds ARGV[from] .. ARGV[from + count - 1] to filter {@code key}, which
     * must exist, and returns how many were new; an item the server refuses fails the script (nothing is reported
     * added that is not).
     */
    private static final String INSERT = """
            local function insert(key, from, count)
              local new = 0
              local i = from
              while i < from + count do
                local last = math.min(i + %1$d - 1, from + count - 1)
                local added = redis.call('BF.INSERT', key, 'NOCREATE', 'ITEMS', unpack(ARGV, i, last))
                for _, answer in ipairs(added) do
                  if type(answer) == 'table' and answer.err then return redis.error_reply(answer.err) end
                  if answer == 1 then new = new + 1 end
                end
                i = last + 1
              end
              return new
            end
            """.formatted(CHUNK);

    /** KEYS: the filter. ARGV: a key's text. Returns 1 might contain, 0 absent, -1 the filter is gone. */
    public static final LuaScript CHECK = LuaScript.of("bf-check", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            return redis.call('BF.EXISTS', KEYS[1], ARGV[1])
            """);

    /**
     * KEYS: the filter. ARGV: keys' texts. Returns a character per key, '1' might contain or '0' absent, or '-' when
     * the filter is gone.
     */
    public static final LuaScript CHECK_ALL = LuaScript.of("bf-check-all", LuaScript.Result.BULK, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return '-' end
            local answers = {}
            local i = 1
            while i <= #ARGV do
              local last = math.min(i + %1$d - 1, #ARGV)
              for _, held in ipairs(redis.call('BF.MEXISTS', KEYS[1], unpack(ARGV, i, last))) do
                answers[#answers + 1] = tostring(held)
              end
              i = last + 1
            end
            return table.concat(answers)
            """.formatted(CHUNK));

    /**
     * Adds keys to the live filter and, while a rebuild runs, to the next one, as {@link RedisScripts#ADD} does for
     * bitmaps (same KEYS, same placement of a shard a step ahead or behind: {@link RedisScripts#PLACE}, same replies).
     * No near copy reads a native filter, so nothing is published.
     *
     * <p>ARGV: the live and next fingerprints the caller saw ('' for none), the count of keys for live and for next,
     * the keys' texts for live then for next, then (optional) the record the add is counted under
     * ({@link RedisScripts#ACKNOWLEDGED}), told apart by the counts, never by its text: a key may read {@code acks:}.
     */
    public static final LuaScript ADD = LuaScript.of("bf-add", LuaScript.Result.INTEGER, RedisScripts.PLACE + """
            local liveCount, nextCount = tonumber(ARGV[3]), tonumber(ARGV[4])
            """ + INSERT + """
            local result = -1
            if liveKey and redis.call('EXISTS', liveKey) == 1 then
              result = insert(liveKey, 5, liveCount)
              if type(result) == 'table' then return result end
            end
            if nextKey and redis.call('EXISTS', nextKey) == 1 then
              local changed = insert(nextKey, 5 + liveCount, nextCount)
              if type(changed) == 'table' then return changed end
              if result < 0 then result = changed end
            end
            if result >= 0 and #ARGV == 5 + liveCount + nextCount then
              redis.call('HINCRBY', KEYS[1], ARGV[#ARGV], 1)
            end
            return result
            """);

    /** KEYS: the generation being built. ARGV: keys' texts. Returns how many were new, or -1 when it is gone. */
    public static final LuaScript BUILD_INSERT = LuaScript.of("bf-build-insert", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            """ + INSERT + """
            return insert(KEYS[1], 1, #ARGV)
            """);

    /** KEYS: the filter. Returns the keys added to it ({@code BF.CARD}), or -1 when it is gone. */
    public static final LuaScript CARD = LuaScript.of("bf-card", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            return redis.call('BF.CARD', KEYS[1])
            """);

    /**
     * {@link RedisScripts#BEGIN} for a native filter: KEYS meta, next filter; ARGV the next fingerprint, its capacity,
     * the new epoch, the loader's fencing token, the error rate. The next filter is reserved scaling
     * ({@code EXPANSION 2}): a full filter that refused adds would refuse keys that exist.
     */
    public static final LuaScript BEGIN = LuaScript.of("bf-begin", LuaScript.Result.INTEGER, """
            if tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') > tonumber(ARGV[4]) then return -1 end
            redis.call('HSET', KEYS[1], 'fence', ARGV[4])
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then
              redis.call('DEL', KEYS[2])
              redis.call('BF.RESERVE', KEYS[2], ARGV[5], ARGV[2], 'EXPANSION', 2)
              redis.call('HSET', KEYS[1], 'next', ARGV[1])
            end
            redis.call('HSET', KEYS[1], 'epoch', ARGV[3])
            if not redis.call('HGET', KEYS[1], 'live') then redis.call('HSET', KEYS[1], 'state', 'loading') end
            return tonumber(redis.call('HGET', KEYS[1], 'stale-marks') or '0')
            """);

    /**
     * {@link RedisScripts#FINISH} for a native filter, with its KEYS, ARGV and replies: nothing is uploaded (KEYS[3]
     * names none), and ARGV[11] is how many keys the build found new, which the next filter must count at least
     * ({@code BF.CARD}; adds that came meanwhile only raise it): fewer, and part of it was lost (-1).
     */
    public static final LuaScript FINISH = LuaScript.of("bf-finish", LuaScript.Result.INTEGER, """
            if (redis.call('HGET', KEYS[1], 'fence') or '0') ~= ARGV[16] then return -3 end
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
            if redis.call('BF.CARD', KEYS[2]) < tonumber(ARGV[11]) then return -1 end
            if KEYS[5] ~= KEYS[4] then redis.call('DEL', KEYS[5]) end
            redis.call('RENAME', KEYS[2], KEYS[4])
            redis.call('HDEL', KEYS[1], 'next')
            local result = 2
            if (redis.call('HGET', KEYS[1], 'stale-marks') or '0') == ARGV[10] then
              redis.call('HDEL', KEYS[1], 'stale')
              result = 1
            end
            redis.call('HSET', KEYS[1], 'live', ARGV[1], 'state', 'ready', 'm', ARGV[2], 'k', ARGV[3], 'seed', ARGV[4],
              'layout', ARGV[5], 'shards', ARGV[6], 'expected-size', ARGV[7], 'error-rate', ARGV[8], 'loaded-at', ARGV[9],
              'type', ARGV[12])
            for i = 6, #KEYS do redis.call('DEL', KEYS[i]) end
            redis.call('HDEL', KEYS[1], 'layers', 'layer-bits')
            redis.call('HINCRBY', KEYS[1], 'generation', 1)
            redis.call('HSET', KEYS[1], 'epoch', ARGV[15])
            return result
            """);
}
