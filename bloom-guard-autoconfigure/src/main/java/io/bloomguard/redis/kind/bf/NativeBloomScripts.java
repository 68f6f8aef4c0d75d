package io.bloomguard.redis.kind.bf;

import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.kind.ServerScripts;
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
    public static final LuaScript CHECK = ServerScripts.check("bf-check", "BF");

    /**
     * KEYS: the filter. ARGV: keys' texts. Returns a character per key, '1' might contain or '0' absent, or '-' when
     * the filter is gone.
     */
    public static final LuaScript CHECK_ALL = ServerScripts.checkAll("bf-check-all", "BF", CHUNK);

    /**
     * Adds keys to the live filter and, while a rebuild runs, to the next one ({@link ServerScripts#ADD}: the
     * KEYS, placement and replies of {@link RedisScripts#ADD}). No near copy reads a native filter, so nothing is
     * published. The record an add is counted under is told apart by the counts of keys, never by its text: a key may
     * read {@code acks:}.
     */
    public static final LuaScript ADD = LuaScript.of("bf-add", LuaScript.Result.INTEGER, RedisScripts.PLACE + INSERT
            + ServerScripts.ADD);

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
     * {@link ServerScripts#BEGIN} reserving a Bloom filter (ARGV[5]: the error rate), scaling
     * ({@code EXPANSION 2}): a full filter that refused adds would refuse keys that exist.
     */
    public static final LuaScript BEGIN = LuaScript.of("bf-begin", LuaScript.Result.INTEGER, ServerScripts.BEGIN
            .formatted("redis.call('BF.RESERVE', KEYS[2], ARGV[5], ARGV[2], 'EXPANSION', 2)"));

    /** {@link ServerScripts#FINISH}, counting the next filter's keys with {@code BF.CARD}. */
    public static final LuaScript FINISH = LuaScript.of("bf-finish", LuaScript.Result.INTEGER, ServerScripts.FINISH
            .formatted("redis.call('BF.CARD', KEYS[2])"));
}
