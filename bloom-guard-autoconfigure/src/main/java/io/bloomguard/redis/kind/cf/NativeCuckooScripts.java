package io.bloomguard.redis.kind.cf;

import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.kind.ServerScripts;
import io.bloomguard.redis.port.LuaScript;

/**
 * The Lua scripts of the native cuckoo kind. {@code CF.EXISTS} answers 0 for a key that does not exist, so every check
 * asks {@code EXISTS} in the same script: a filter that is gone reads as unknown.
 *
 * <p>A key is held at most {@value #COPIES} times. A cuckoo filter keeps a copy of a key's fingerprint for each add,
 * so that a delete takes one back and a key put by two rows survives the delete of one; but a key put again and again
 * (an update puts its key again) would fill its two buckets, then add a sub-filter each few puts. So an add stops at
 * {@value #COPIES} copies ({@code CF.COUNT}), and a remove deletes only a key's last copy: at {@value #COPIES} the key
 * stays until a rebuild, as a counting filter's saturated counter does. {@code CF.COUNT} counts fingerprints that match,
 * which may be another key's: it only ever counts high, which keeps keys in.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class NativeCuckooScripts {

    /** Copies of a key a filter holds at most: from then on it stays until a rebuild. */
    static final int COPIES = 2;

    /** Keys per {@code CF.MEXISTS} inside a script (Lua's {@code unpack} has a limit). */
    private static final int CHUNK = 1000;

    private NativeCuckooScripts() {
    }

    /**
     * Lua: {@code insert(key, from, count)} adds ARGV[from] .. ARGV[from + count - 1] to filter {@code key}, which must
     * exist, each up to {@value #COPIES} copies, and returns how many were new (no copy before).
     */
    private static final String INSERT = """
            local function insert(key, from, count)
              local new = 0
              for i = from, from + count - 1 do
                local copies = redis.call('CF.COUNT', key, ARGV[i])
                if copies < %1$d then redis.call('CF.ADD', key, ARGV[i]) end
                if copies == 0 then new = new + 1 end
              end
              return new
            end
            """.formatted(COPIES);

    /** KEYS: the filter. ARGV: a key's text. Returns 1 might contain, 0 absent, -1 the filter is gone. */
    public static final LuaScript CHECK = ServerScripts.check("cf-check", "CF");

    /** KEYS: the filter. ARGV: keys' texts. Returns '1' or '0' per key, or '-' when the filter is gone. */
    public static final LuaScript CHECK_ALL = ServerScripts.checkAll("cf-check-all", "CF", CHUNK);

    /**
     * Lua: {@code held(key)}, the copies filter {@code key} holds, from {@code CF.INFO} ("Number of items inserted",
     * which a delete lowers; its names reach a script as status replies).
     */
    private static final String HELD = """
            local function held(key)
              local info = redis.call('CF.INFO', key)
              for i = 1, #info, 2 do
                local name = info[i]
                if type(name) == 'table' then name = name.ok end
                if name == 'Number of items inserted' then return info[i + 1] end
              end
              return 0
            end
            """;

    /** KEYS: the filter. Returns the copies it holds ({@code CF.INFO}), or -1 when it is gone. */
    public static final LuaScript COUNT = LuaScript.of("cf-count", LuaScript.Result.INTEGER, HELD + """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            return held(KEYS[1])
            """);

    /** Adds keys to the live filter and, during a rebuild, to the next one ({@link ServerScripts#ADD}). */
    public static final LuaScript ADD = LuaScript.of("cf-add", LuaScript.Result.INTEGER, RedisScripts.PLACE + INSERT
            + ServerScripts.ADD);

    /** KEYS: the generation being built. ARGV: keys' texts. Returns how many were new, or -1 when it is gone. */
    public static final LuaScript BUILD_INSERT = LuaScript.of("cf-build-insert", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            """ + INSERT + """
            return insert(KEYS[1], 1, #ARGV)
            """);

    /**
     * Takes one put of a key back from the live filter, as a counting filter's remove does (same KEYS, same replies:
     * 1 taken back, 0 certainly absent, -1 the filter is gone, -2 another generation is live, -3 the epoch moved or
     * the remove was done already). ARGV: the live fingerprint, the epoch the row's delete began at ('' for none), the
     * key's text. Only the key's last copy is deleted: at {@value #COPIES} copies it stays.
     */
    public static final LuaScript REMOVE = LuaScript.of("cf-remove", LuaScript.Result.INTEGER, """
            if (redis.call('HGET', KEYS[1], 'live') or '') ~= ARGV[1] then return -2 end
            if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
            if ARGV[2] ~= '' and (redis.call('HGET', KEYS[1], 'epoch') or '0') ~= ARGV[2] then return -3 end
            if not redis.call('SET', KEYS[4], '1', 'NX', 'PX', 600000) then return -3 end
            local copies = redis.call('CF.COUNT', KEYS[2], ARGV[3])
            if copies == 0 then return 0 end
            if copies == 1 then redis.call('CF.DEL', KEYS[2], ARGV[3]) end
            return 1
            """);

    /**
     * KEYS: a filter another program created. ARGV: a key's text. As {@link #REMOVE}, without generations, epochs or
     * remove ids (nothing rebuilds it here): 1 its last copy taken out or, at {@value #COPIES} copies, kept; 0
     * certainly absent; -1 the filter is gone.
     */
    public static final LuaScript FOREIGN_REMOVE = LuaScript.of("cf-foreign-remove", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            local copies = redis.call('CF.COUNT', KEYS[1], ARGV[1])
            if copies == 0 then return 0 end
            if copies == 1 then redis.call('CF.DEL', KEYS[1], ARGV[1]) end
            return 1
            """);

    /**
     * {@link ServerScripts#BEGIN} reserving a cuckoo filter of two-fingerprint buckets (ARGV[5]: the bucket
     * size), growing by sub-filters ({@code EXPANSION 1}) when an add finds no room: a filter that refused adds would
     * refuse keys that exist.
     */
    public static final LuaScript BEGIN = LuaScript.of("cf-begin", LuaScript.Result.INTEGER, ServerScripts.BEGIN
            .formatted("redis.call('CF.RESERVE', KEYS[2], ARGV[2], 'BUCKETSIZE', ARGV[5], 'EXPANSION', 1)"));

    /** {@link ServerScripts#FINISH}, counting the next filter's keys from {@code CF.INFO}. */
    public static final LuaScript FINISH = LuaScript.of("cf-finish", LuaScript.Result.INTEGER, HELD
            + ServerScripts.FINISH.formatted("held(KEYS[2])"));
}
