package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The scripts of a {@link ServerKind}, each of which reads a filter that is gone as unknown, never as absent; and the
 * Lua its kinds' build and add scripts are made of ({@link #BEGIN}, {@link #FINISH}, {@link #ADD}).
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param check    KEYS the filter, ARGV a key's text: 1 might contain, 0 absent, -1 gone
 * @param checkAll KEYS the filter, ARGV keys' texts: a character per key, '1' or '0', or '-' when gone
 * @param count    KEYS the filter: the keys it holds, -1 when gone
 * @param add      KEYS and replies of {@link RedisScripts#ADD}; ARGV the live and next fingerprints, the counts of keys
 *                 for live and for next, their texts, then an optional record ({@link RedisScripts#ACKNOWLEDGED})
 * @param remove   KEYS and replies of a counting filter's remove; ARGV the live fingerprint, the epoch, the key's text;
 *                 {@code null} for a kind that cannot remove
 * @hidden
 */
public record ServerScripts(LuaScript check, LuaScript checkAll, LuaScript count, LuaScript add,
        @Nullable LuaScript remove) {

    /**
     * A kind's {@code check}: {@code EXISTS} then {@code <family>.EXISTS} in one script, so that a filter that is gone
     * reads as unknown (-1), never as absent ({@code BF.EXISTS} answers 0 for a key that does not exist).
     */
    public static LuaScript check(String name, String family) {
        return LuaScript.of(name, LuaScript.Result.INTEGER, """
                if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
                return redis.call('%1$s.EXISTS', KEYS[1], ARGV[1])
                """.formatted(family));
    }

    /** A kind's {@code checkAll}: {@code EXISTS}, then {@code <family>.MEXISTS} {@code chunk} keys at a time. */
    public static LuaScript checkAll(String name, String family, int chunk) {
        return LuaScript.of(name, LuaScript.Result.BULK, """
                if redis.call('EXISTS', KEYS[1]) == 0 then return '-' end
                local answers = {}
                local i = 1
                while i <= #ARGV do
                  local last = math.min(i + %2$d - 1, #ARGV)
                  for _, held in ipairs(redis.call('%1$s.MEXISTS', KEYS[1], unpack(ARGV, i, last))) do
                    answers[#answers + 1] = tostring(held)
                  end
                  i = last + 1
                end
                return table.concat(answers)
                """.formatted(family, chunk));
    }

    /**
     * Lua for the {@code BEGIN} of a {@link ServerKind}, as {@link RedisScripts#BEGIN}'s (KEYS meta, next filter;
     * ARGV the next fingerprint, its capacity, the new epoch, the loader's fencing token, the kind's own argument;
     * same reply), with {@code %1$s} the Lua that reserves an empty filter at KEYS[2] from ARGV[2] and ARGV[5].
     */
    public static final String BEGIN = """
            if tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') > tonumber(ARGV[4]) then return -1 end
            redis.call('HSET', KEYS[1], 'fence', ARGV[4])
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then
              redis.call('DEL', KEYS[2])
              %1$s
              redis.call('HSET', KEYS[1], 'next', ARGV[1])
            end
            redis.call('HSET', KEYS[1], 'epoch', ARGV[3])
            if not redis.call('HGET', KEYS[1], 'live') then redis.call('HSET', KEYS[1], 'state', 'loading') end
            return tonumber(redis.call('HGET', KEYS[1], 'stale-marks') or '0')
            """;

    /**
     * Lua for the swap of a {@link ServerKind}, with {@link RedisScripts#FINISH}'s KEYS, ARGV and replies: nothing is uploaded
     * (KEYS[3] names none), and ARGV[11] is how many keys the build found new, which the next filter must hold at least
     * ({@code %1$s}: Lua that counts the keys of KEYS[2]; adds that came meanwhile only raise it): fewer, and part of it
     * was lost (-1).
     */
    public static final String FINISH = """
            if (redis.call('HGET', KEYS[1], 'fence') or '0') ~= ARGV[16] then return -3 end
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
            if %1$s < tonumber(ARGV[11]) then return -1 end
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
            """;

    /**
     * Lua for the add of a {@link ServerKind} (see {@link #add}), after {@link RedisScripts#PLACE} and a function
     * {@code insert(key, from, count)} of the kind's that adds ARGV[from] .. ARGV[from + count - 1] to an existing
     * filter and returns how many were new (or an error reply).
     */
    public static final String ADD = """
            local liveCount, nextCount = tonumber(ARGV[3]), tonumber(ARGV[4])
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
            """;
}
