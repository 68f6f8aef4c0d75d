package io.bloomguard.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Tries every command of {@link RedisAcl#COMMANDS} once, on scratch keys of the filter (under its prefix and hash
 * tag), so that a user who may not run one of them is found when the filter starts, naming each command it may
 * not run, rather than when that command is first needed (a check, a rebuild, the first script after a Redis
 * restart). Nothing it does changes the filter: it reads missing keys, writes one scratch key and deletes it.
 *
 * <p>Usage: {@code check.verify(commands);} (throws {@link RedisAccessDeniedException} naming what was refused)
 */
final class RedisAccessCheck {

    private static final String SCRIPT_SOURCE = """
            local denied = {}
            local function try(name, ...)
              local reply = redis.pcall(...)
              if type(reply) == 'table' and reply.err and (string.find(reply.err, 'NOPERM', 1, true)
                  or string.find(reply.err, "can't run this command", 1, true)) then
                table.insert(denied, name)
              end
            end
            try('set', 'SET', KEYS[1], '0', 'PX', '60000')
            try('get', 'GET', KEYS[1])
            try('setbit', 'SETBIT', KEYS[1], 0, 0)
            try('getbit', 'GETBIT', KEYS[1], 0)
            try('bitop', 'BITOP', 'OR', KEYS[1], KEYS[1])
            try('rename', 'RENAME', KEYS[1], KEYS[2])
            try('hset', 'HSET', KEYS[3], 'f', '1')
            try('hget', 'HGET', KEYS[3], 'f')
            try('hincrby', 'HINCRBY', KEYS[3], 'f', 1)
            try('hdel', 'HDEL', KEYS[3], 'f')
            redis.pcall('DEL', KEYS[1], KEYS[2], KEYS[3])
            return table.concat(denied, ' ')
            """;

    private final String key;
    private final List<String> scriptKeys;
    /**
     * The script, unique to this check (a comment tells it apart), so that its first run finds the server without
     * it: {@code EVALSHA} is answered {@code NOSCRIPT}, and {@code EVAL} is tried too.
     */
    private final LuaScript script;
    private final Duration timeout;
    private final RedisAccessState access;

    RedisAccessCheck(RedisFilterKeys keys, Duration timeout, RedisAccessState access) {
        this.access = access;
        this.key = keys.accessCheck(0);
        this.scriptKeys = List.of(keys.accessCheck(1), keys.accessCheck(2), keys.accessCheck(3));
        this.script = LuaScript.of("access-check", LuaScript.Result.BULK,
                SCRIPT_SOURCE + "-- " + UUID.randomUUID() + "\n");
        this.timeout = timeout;
    }

    /**
     * Checks every command and records the outcome in the filter's access state: the filter is refused while Redis
     * refuses any command, and no longer once it refuses none.
     *
     * @throws RedisAccessDeniedException naming every command (or the keys) Redis refused
     * @throws RedisUnavailableException  when Redis does not answer
     */
    void verify(RedisCommands via) {
        List<RedisDenial> denials = run(via);
        if (!denials.isEmpty()) {
            throw access.denied(denials);
        }
        access.accessVerified();
    }

    /**
     * Sends every command, all before awaiting any reply.
     *
     * @return what Redis refused, empty when it refused nothing
     * @throws RedisUnavailableException when Redis does not answer (then nothing is known of the user's rights)
     */
    List<RedisDenial> run(RedisCommands via) {
        Map<String, Function<RedisPort, CompletableFuture<Object>>> commands = new LinkedHashMap<>();
        commands.put("getrange", replyOf(port -> port.getRange(key, 0, 0)));
        commands.put("setrange", replyOf(port -> port.setRange(key, 0, new byte[0]))); // creates nothing
        commands.put("hgetall", replyOf(port -> port.hashGetAll(key)));
        commands.put("exists", replyOf(port -> port.exists(key)));
        commands.put("bitcount", replyOf(port -> port.bitCount(key)));
        commands.put("pexpire", replyOf(port -> port.expire(key, 1)));
        commands.put("del", replyOf(port -> port.delete(key)));
        commands.put("eval", replyOf(port -> port.eval(script, scriptKeys, List.of())));
        List<RedisDenial> denied = new ArrayList<>();
        Map<String, CompletableFuture<Object>> replies = new LinkedHashMap<>();
        for (Map.Entry<String, Function<RedisPort, CompletableFuture<Object>>> command : commands.entrySet()) {
            try {
                replies.put(command.getKey(), via.send(command.getValue()));
            }
            catch (RedisUnavailableException ex) {
                RedisDenial denial = RedisDenial.of(ex);
                if (denial == null) {
                    throw ex;
                }
                denied.add(denial);
                if (!denial.code().equals("NOPERM")) {
                    return denied; // the credentials: no command will do better
                }
            }
        }
        RedisUnavailableException unanswered = null;
        for (Map.Entry<String, CompletableFuture<Object>> reply : replies.entrySet()) {
            try {
                Object answer = via.await(reply.getValue(), timeout);
                if (answer instanceof byte[] scriptDenied && scriptDenied.length > 0) {
                    for (String command : new String(scriptDenied, java.nio.charset.StandardCharsets.UTF_8).split(" ")) {
                        denied.add(RedisDenial.command(command, "NOPERM (from a script) this user has no permissions"
                                + " to run the '" + command + "' command"));
                    }
                }
            }
            catch (RedisUnavailableException ex) {
                RedisDenial denial = RedisDenial.of(ex);
                if (denial != null) {
                    denied.add(denial);
                }
                else if (unanswered == null) {
                    unanswered = ex;
                }
            }
        }
        if (denied.isEmpty() && unanswered != null) {
            throw unanswered;
        }
        return denied;
    }

    private static Function<RedisPort, CompletableFuture<Object>> replyOf(
            Function<RedisPort, ? extends CompletableFuture<?>> command) {
        return port -> command.apply(port).thenApply(reply -> reply);
    }
}
