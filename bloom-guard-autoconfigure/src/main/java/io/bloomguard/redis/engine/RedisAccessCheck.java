package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisDenial;
import io.bloomguard.redis.port.RedisUnavailableException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Tries every command of {@link io.bloomguard.redis.port.RedisAcl#COMMANDS} the filter sends once ({@code BITFIELD} only for a counting filter,
 * the only kind that sends it), on scratch keys of the filter (under its prefix and hash
 * tag), so that a user who may not run one of them is found when the filter starts, naming each command it may
 * not run, rather than when that command is first needed (a check, a rebuild, the first script after a Redis
 * restart). It is one script: Redis checks the commands a script runs against the user as it checks the user's own,
 * and one round trip tries them all. Nothing it does changes the filter: it writes scratch keys and deletes them.
 * The same script finds a server that stores a bitmap written with {@code SETBIT} as a type of its own
 * ({@code bitmap-default-roaring yes}), on which every check would fail; once Redis allows every command,
 * {@link RedisKeyTypes} looks for a key of the filter that holds another type than bloom-guard writes there.
 *
 * <p>Usage: {@code check.verify(commands, view);} (throws {@link io.bloomguard.redis.port.RedisAccessDeniedException} naming what was
 * refused)
 */
final class RedisAccessCheck {

    /**
     * Runs every command with {@code redis.pcall}, which returns a refusal instead of stopping the script, and
     * answers the names of those refused (and {@code ~keys} for keys outside the user's patterns, {@code ~type:} and
     * a type for a bitmap that {@code SETBIT} made a value of another type than a string), space-separated.
     */
    private static final String SCRIPT_SOURCE = """
            local denied = {}
            local function try(name, ...)
              local reply = redis.pcall(...)
              if type(reply) == 'table' and reply.err then
                if string.find(reply.err, "can't access", 1, true) or string.find(reply.err, 'access one of the keys', 1, true) then
                  table.insert(denied, '~keys')
                elseif string.find(reply.err, 'NOPERM', 1, true) or string.find(reply.err, "can't run this command", 1, true) then
                  table.insert(denied, name)
                end
              end
            end
            try('set', 'SET', KEYS[1], '0', 'PX', '60000')
            try('get', 'GET', KEYS[1])
            try('getrange', 'GETRANGE', KEYS[1], 0, 0)
            try('setrange', 'SETRANGE', KEYS[1], 0, '0')
            try('setbit', 'SETBIT', KEYS[1], 0, 0)
            try('getbit', 'GETBIT', KEYS[1], 0)
            try('bitcount', 'BITCOUNT', KEYS[1])
            try('bitop', 'BITOP', 'OR', KEYS[1], KEYS[1])
            if ARGV[1] == 'counting' then
              try('bitfield', 'BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', 'INCRBY', 'u4', 0, 0)
            end
            if ARGV[1] == 'bf' then
              try('bf.reserve', 'BF.RESERVE', KEYS[1], '0.01', 100)
              try('bf.insert', 'BF.INSERT', KEYS[1], 'NOCREATE', 'ITEMS', 'x')
              try('bf.exists', 'BF.EXISTS', KEYS[1], 'x')
              try('bf.mexists', 'BF.MEXISTS', KEYS[1], 'x')
              try('bf.card', 'BF.CARD', KEYS[1])
              local probe = redis.pcall('BF.CARD', KEYS[1])
              if type(probe) == 'table' and probe.err and string.find(string.lower(probe.err), 'unknown', 1, true) then
                table.insert(denied, '~commands:BF')
              end
            end
            if ARGV[1] == 'cf' then
              try('cf.reserve', 'CF.RESERVE', KEYS[1], 100)
              try('cf.add', 'CF.ADD', KEYS[1], 'x')
              try('cf.count', 'CF.COUNT', KEYS[1], 'x')
              try('cf.del', 'CF.DEL', KEYS[1], 'x')
              try('cf.exists', 'CF.EXISTS', KEYS[1], 'x')
              try('cf.mexists', 'CF.MEXISTS', KEYS[1], 'x')
              try('cf.info', 'CF.INFO', KEYS[1])
              local probe = redis.pcall('CF.INFO', KEYS[1])
              if type(probe) == 'table' and probe.err and string.find(string.lower(probe.err), 'unknown', 1, true) then
                table.insert(denied, '~commands:CF')
              end
            end
            try('exists', 'EXISTS', KEYS[1])
            try('pexpire', 'PEXPIRE', KEYS[1], 60000)
            try('rename', 'RENAME', KEYS[1], KEYS[2])
            try('hset', 'HSET', KEYS[3], 'f', '1')
            try('hget', 'HGET', KEYS[3], 'f')
            try('hgetall', 'HGETALL', KEYS[3])
            try('hincrby', 'HINCRBY', KEYS[3], 'f', 1)
            try('hdel', 'HDEL', KEYS[3], 'f')
            redis.pcall('DEL', KEYS[2])
            redis.pcall('SETBIT', KEYS[2], 7, 1)
            local read = redis.pcall('GETRANGE', KEYS[2], 0, 0)
            if type(read) == 'table' and read.err and string.find(read.err, 'WRONGTYPE', 1, true) then
              local named = redis.pcall('TYPE', KEYS[2])
              table.insert(denied, '~type:' .. ((type(named) == 'table' and named.ok) or ''))
            end
            try('del', 'DEL', KEYS[1], KEYS[2], KEYS[3])
            return table.concat(denied, ' ')
            """;

    private final List<String> keys;
    /**
     * The script, unique to this check (a comment tells it apart), so that its first run finds the server without
     * it: {@code EVALSHA} is answered {@code NOSCRIPT}, and {@code EVAL} is tried too.
     */
    private final LuaScript script;
    private final Duration timeout;
    private final RedisAccessState access;
    /** {@code counting} for a counting filter, whose scripts run {@code BITFIELD}; {@code bloom} for a plain one. */
    private final String type;
    private final RedisKeyTypes keyTypes;

    /** @param type the filter's {@link io.bloomguard.redis.kind.RedisFilterIdentity#type()} */
    public RedisAccessCheck(RedisFilterKeys keys, Duration timeout, RedisAccessState access, String type,
            RedisKeyTypes keyTypes) {
        this.keys = List.of(keys.accessCheck(1), keys.accessCheck(2), keys.accessCheck(3));
        this.script = LuaScript.of("access-check", LuaScript.Result.BULK,
                SCRIPT_SOURCE + "-- " + UUID.randomUUID() + "\n");
        this.timeout = timeout;
        this.access = access;
        this.type = type;
        this.keyTypes = keyTypes;
    }

    /**
     * Checks every command, then the type of every key {@code view} names, and records the outcome in the filter's
     * access state: the filter is refused while Redis refuses any command or holds a key of another type, and no
     * longer once neither is so.
     *
     * @throws io.bloomguard.redis.port.RedisAccessDeniedException naming every command (or the keys) Redis refused, or the key of another type
     * @throws RedisUnavailableException  when Redis does not answer
     */
    public void verify(RedisCommands via, RedisFilterView view) {
        List<RedisDenial> denials = run(via);
        if (denials.isEmpty()) {
            RedisDenial wrongType = keyTypes.find(via, view);
            if (wrongType != null) {
                denials = List.of(wrongType);
            }
        }
        if (!denials.isEmpty()) {
            throw access.denied(denials);
        }
        access.accessVerified();
    }

    /**
     * Checks the type of every key {@code view} names, once a refresh has read which they are.
     *
     * @throws io.bloomguard.redis.port.RedisAccessDeniedException naming a key of another type
     * @throws RedisUnavailableException  when Redis does not answer
     */
    public void verifyKeyTypes(RedisCommands via, RedisFilterView view) {
        RedisDenial wrongType = keyTypes.find(via, view);
        if (wrongType != null) {
            throw access.denied(List.of(wrongType));
        }
    }

    /**
     * @return what Redis refused, empty when it refused nothing
     * @throws RedisUnavailableException when Redis does not answer (then nothing is known of the user's rights)
     */
    private List<RedisDenial> run(RedisCommands via) {
        byte[] refused;
        try {
            refused = (byte[]) via.call(port -> port.eval(script, keys, List.of(type)), timeout);
        }
        catch (RedisUnavailableException ex) {
            // The credentials (met when connecting), EVALSHA or EVAL themselves, or the keys the script declares.
            RedisDenial denial = RedisDenial.of(ex);
            if (denial == null) {
                throw ex;
            }
            return List.of(denial);
        }
        List<RedisDenial> denied = new ArrayList<>();
        for (String what : new String(refused, StandardCharsets.UTF_8).split(" ")) {
            if (what.startsWith("~type:")) {
                denied.add(RedisDenial.bitmapsStoredAs(what.substring("~type:".length())));
            }
            else if (what.startsWith("~commands:")) {
                denied.add(RedisDenial.missingCommands(what.substring("~commands:".length())));
            }
            else if (what.equals("~keys")) {
                denied.add(new RedisDenial("NOPERM", null, true, "NOPERM (from a script) no permissions to access"
                        + " a key"));
            }
            else if (!what.isEmpty()) {
                denied.add(RedisDenial.command(what, "NOPERM (from a script) no permissions to run the '" + what
                        + "' command"));
            }
        }
        return denied;
    }
}
