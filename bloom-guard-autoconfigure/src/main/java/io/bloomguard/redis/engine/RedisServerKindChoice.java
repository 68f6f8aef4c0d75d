package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Decides, for {@code redis.kind: auto}, whether a filter is the server's own filter or bloom-guard's bitmap. Every
 * instance must decide alike, or each would read the other's filter as another shape ({@code MISMATCHED}) and let every
 * call through: so a filter already stored is followed in the family it is stored as, and only one not stored yet is
 * decided by the server, which is the same server for all of them (native when it knows the kind's commands).
 *
 * <p>Usage: {@code KindDecision decision = engine.chooseKind("users", NativeBloomKind.INSTANCE);}
 */
final class RedisServerKindChoice {

    /**
     * KEYS: any key of the filter's slot. ARGV: a command of the kind's that reads one key. Returns 0 when the server
     * does not know the command, 1 when it does (an error of another sort, such as an ACL denial or a key of another
     * type, still says the command exists: the access check reports those).
     */
    static final LuaScript HAS_COMMAND = LuaScript.of("has-command", LuaScript.Result.INTEGER, """
            local reply = redis.pcall(ARGV[1], KEYS[1])
            if type(reply) == 'table' and reply.err and string.find(reply.err, 'Unknown Redis command', 1, true) then
              return 0
            end
            return 1
            """);

    /** Attempts before an instance that cannot reach Redis gives up deciding. */
    private static final int ATTEMPTS = 3;

    private final String keyPrefix;
    private final RedisCommands commands;
    private final List<BlockKind> kinds;
    private final Duration timeout;
    private final Duration pause;

    RedisServerKindChoice(String keyPrefix, RedisCommands commands, List<BlockKind> kinds, Duration timeout,
            Duration pause) {
        this.keyPrefix = keyPrefix;
        this.commands = commands;
        this.kinds = kinds;
        this.timeout = timeout;
        this.pause = pause;
    }

    /**
     * What filter {@code name} is to be, trying Redis a few times.
     *
     * @param server the server's kind it would be
     * @throws RedisUnavailableException when Redis did not answer any attempt
     */
    RedisEngine.KindDecision decide(String name, ServerKind server) {
        RedisUnavailableException first = null; // later ones may say only that the breaker opened
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (attempt > 0) {
                LockSupport.parkNanos(pause.toNanos());
            }
            try {
                return decideOnce(new RedisFilterKeys(keyPrefix, name), server.readCommand());
            }
            catch (RedisUnavailableException ex) {
                first = (first != null) ? first : ex;
            }
        }
        throw first;
    }

    private RedisEngine.KindDecision decideOnce(RedisFilterKeys keys, String probe) {
        Map<String, String> meta = commands.call(port -> port.hashGetAll(keys.meta(0)), timeout);
        RedisFilterIdentity stored = stored(meta.get("live"));
        String as = "live";
        if (stored == null) {
            stored = stored(meta.get("next"));
            as = "being built";
        }
        if (stored != null) {
            boolean onServer = stored.kind().serverBuild() != null;
            return new RedisEngine.KindDecision(onServer, "follows the filter stored in Redis (" + as + ": "
                    + (onServer ? "the server's own, " + stored.kind().type() : "bloom-guard's bitmap") + ")");
        }
        Object known = commands.call(port -> port.eval(HAS_COMMAND, List.of(keys.meta(0)), List.of(probe)), timeout);
        String family = probe.substring(0, probe.indexOf('.')) + ".*";
        return Long.valueOf(1).equals(known)
                ? new RedisEngine.KindDecision(true, "the server has " + family + ", and no filter is stored yet")
                : new RedisEngine.KindDecision(false, "the server has no " + family + " commands (" + probe
                        + " is unknown), and no filter is stored yet");
    }

    private @Nullable RedisFilterIdentity stored(@Nullable String fingerprint) {
        return RedisFilterIdentity.parse(fingerprint, kinds);
    }
}
