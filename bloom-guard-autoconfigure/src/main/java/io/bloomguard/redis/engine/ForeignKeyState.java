package io.bloomguard.redis.engine;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisDenial;
import io.bloomguard.redis.port.RedisForeignFilterException;
import io.bloomguard.redis.port.RedisUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * What the key of a {@link ForeignFilter} holds, as last read, and so its status: a filter of its kind that fits what
 * is declared ({@link ServerKind#contradiction}), none ({@code MISSING}), one that contradicts it
 * ({@code MISMATCHED}), another type or an ACL denial (a refusal), or one marked incomplete ({@code STALE}). A change
 * of status is logged, so that a filter that stops rejecting says why where operators look.
 *
 * <p>Usage: {@code state.read(owed::write, () -> { replay(); return pending(); }); state.status();}
 */
final class ForeignKeyState {

    private static final Log logger = LogFactory.getLog(ForeignKeyState.class);

    /**
     * KEYS: the filter. ARGV: the kind's info command, its type name. Returns the key's type alone when it is none or
     * another, else the type and the info's names and values as text (an empty value as '').
     */
    static final LuaScript INFO = LuaScript.of("foreign-info", LuaScript.Result.LIST, """
            local kind = redis.call('TYPE', KEYS[1])['ok']
            if kind ~= ARGV[2] then return {kind} end
            local reply = {kind}
            for _, value in ipairs(redis.call(ARGV[1], KEYS[1])) do
              if type(value) == 'table' then value = value['ok'] end
              if not value then value = '' end
              reply[#reply + 1] = tostring(value)
            end
            return reply
            """);

    private final String name;
    private final String key;
    private final ServerKind kind;
    private final FilterSizing declared;
    private final RedisFilterKeys own;
    private final RedisCommands commands;
    private final Duration timeout;
    private volatile Seen seen = new Seen(SharedFilterStatus.NOT_STARTED, "not started", Map.of());
    private volatile @Nullable RedisForeignFilterException refusal;

    /** What a read found: the status, why, and the filter's info fields. */
    private record Seen(SharedFilterStatus status, @Nullable String reason, Map<String, String> info) {
    }

    /** @param own the filter's own keys, under bloom-guard's prefix: its metadata holds the incomplete mark */
    ForeignKeyState(String name, String key, ServerKind kind, FilterSizing declared, RedisFilterKeys own,
            RedisCommands commands, Duration timeout) {
        this.name = name;
        this.key = key;
        this.kind = kind;
        this.declared = declared;
        this.own = own;
        this.commands = commands;
        this.timeout = timeout;
    }

    /**
     * Reads the key's type and info, and the filter's own metadata.
     *
     * @param before    what is owed to Redis first (the incomplete mark); may throw as a command does
     * @param pending   once the key holds a filter that fits: writes the adds kept for later, and says how many are
     *                  left
     */
    void read(Runnable before, IntSupplier pending) {
        List<String> reply;
        Map<String, String> meta;
        try {
            before.run();
            List<?> raw = commands.call(port -> port.eval(INFO, List.of(key),
                    List.of(kind.infoCommand(), kind.redisType())).thenApply(List.class::cast), timeout);
            reply = raw.stream().map(value -> new String((byte[]) value, StandardCharsets.UTF_8)).toList();
            meta = commands.call(port -> port.hashGetAll(own.meta(0)), timeout);
        }
        catch (RedisUnavailableException ex) {
            failed(ex);
            return;
        }
        String type = reply.get(0);
        if (type.equals("none")) {
            see(new Seen(SharedFilterStatus.MISSING, "key '" + key + "' does not exist: its owner has not created"
                    + " it yet, or it was deleted, evicted or flushed; calls pass through until it is back", Map.of()));
            return;
        }
        String family = kind.infoCommand().substring(0, 2);
        if (!type.equals(kind.redisType())) {
            refuse("Filter '" + name + "' guards key '" + key + "', which holds a " + type + ", not a " + family
                    + " filter (" + kind.redisType() + ")", "Name the key of the filter in bloom-guard.filters." + name
                    + ".redis.key, or set its type (bloom for BF.*, cuckoo for CF.*)");
            return;
        }
        Map<String, String> info = new LinkedHashMap<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            info.put(reply.get(i), reply.get(i + 1));
        }
        String contradiction = kind.contradiction(info, declared);
        if (contradiction != null) {
            see(new Seen(SharedFilterStatus.MISMATCHED, "Filter '" + name + "' guards key '" + key + "', whose"
                    + " filter contradicts what is declared: " + contradiction, info));
            return;
        }
        refusal = null;
        int left = pending.getAsInt();
        String stale = meta.get("stale");
        if (stale != null) {
            see(new Seen(SharedFilterStatus.STALE, "marked incomplete (" + stale + "): once the owner has filled"
                    + " key '" + key + "' again from the data, delete the mark: HDEL " + own.meta(0) + " stale", info));
        }
        else if (left > 0) {
            see(new Seen(SharedFilterStatus.STALE, left + " adds of this instance not written yet", info));
        }
        else {
            see(new Seen(SharedFilterStatus.READY, null, info));
        }
    }

    /** An ACL denial is a refusal with what to grant; an outage leaves the status as it was, once it had one. */
    private void failed(RedisUnavailableException failure) {
        RedisDenial denial = RedisDenial.of(failure);
        if (denial != null) {
            refuse("Filter '" + name + "': Redis refuses what it needs on key '" + key + "' (" + denial.code() + ": "
                    + denial.serverMessage() + ")", "Grant bloom-guard's user +eval +evalsha +type +"
                    + kind.infoCommand().toLowerCase(Locale.ROOT) + " and the " + kind.infoCommand().substring(0, 2)
                    + ".* commands of docs/redis.md on ~" + key);
        }
        else if (seen.status() == SharedFilterStatus.NOT_STARTED || seen.status() == SharedFilterStatus.UNREACHABLE) {
            see(new Seen(SharedFilterStatus.UNREACHABLE, "Redis did not answer: " + failure.getMessage(), Map.of()));
        }
    }

    private void refuse(String problem, String action) {
        RedisForeignFilterException refused = new RedisForeignFilterException(name, problem, action);
        refusal = refused;
        see(new Seen(SharedFilterStatus.ACCESS_DENIED, refused.getMessage(), Map.of()));
    }

    /** At startup: a filter that contradicts what is declared is a refusal, which stops the application. */
    void refuseIfMismatched() {
        if (refusal == null && seen.status() == SharedFilterStatus.MISMATCHED) {
            refusal = new RedisForeignFilterException(name, String.valueOf(seen.reason()), "Declare the filter's"
                    + " expected-size and error-rate as its owner created it (or ask the owner to create it so), or"
                    + " name another key in bloom-guard.filters." + name + ".redis.key");
        }
    }

    /** What a check or an add found between reads, keeping the info last read. */
    void set(SharedFilterStatus status, String reason) {
        see(new Seen(status, reason, seen.info()));
    }

    private void see(Seen next) {
        Seen before = seen;
        seen = next;
        if (before.status() != next.status() && before.status() != SharedFilterStatus.NOT_STARTED) {
            if (next.status() == SharedFilterStatus.READY) {
                logger.info("Filter '" + name + "' (key '" + key + "') is ready again");
            }
            else {
                logger.warn("Filter '" + name + "' (key '" + key + "') lets every call through: " + next.reason());
            }
        }
    }

    SharedFilterStatus status() {
        return seen.status();
    }

    @Nullable String reason() {
        return seen.reason();
    }

    Map<String, String> info() {
        return seen.info();
    }

    @Nullable RedisForeignFilterException refusal() {
        return refusal;
    }
}
