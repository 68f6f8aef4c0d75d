package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisDenial;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Finds a key of a filter that holds a value of another type than bloom-guard writes there: a string for a bitmap
 * or the lock, a hash for the metadata. Redis answers {@code WRONGTYPE} to every command on such a key, which alone
 * would show as a stream of backend errors that pass each call; named, it is a configuration mistake
 * ({@link io.bloomguard.redis.port.RedisAccessDeniedException}) with its remedy. Its causes: another application's key under bloom-guard's
 * prefix, or a server that stores bitmaps as a type of their own ({@code bitmap-default-roaring yes}: {@code SETBIT}
 * makes a key of type {@code bitmap}, which {@code GETRANGE} then refuses).
 *
 * <p>One script per shard, over the keys every instance reads: the metadata, the live generation's bitmaps (and
 * layers), the one being built, and the lock. It tries on each key a command bloom-guard sends it, and asks
 * {@code TYPE} only of a key that answered {@code WRONGTYPE}, so a user whose ACL lacks {@code TYPE} is still told
 * which key (not its type), and no other user ever runs it.
 *
 * <p>Usage: {@code RedisDenial wrong = keyTypes.find(commands, view); if (wrong != null) ...}
 */
final class RedisKeyTypes {

    /** The seed in a bitmap's name, which is never shown: it would let anyone who sees it pick keys that pass. */
    private static final Pattern SEED = Pattern.compile("(:(?:bits|next):v\\d+\\.b\\d+\\.k\\d+\\.s)[0-9a-f]+");

    private static final String HASH = "hash";

    private static final String STRING = "string";

    /**
     * KEYS: keys to try. ARGV: the type each should have. Returns '' when each has its type or none, else the first
     * that has another: its name, the type it should have and the type it has ('' when {@code TYPE} is refused),
     * separated by spaces.
     */
    private static final LuaScript FIND = LuaScript.of("key-types", LuaScript.Result.BULK, """
            for i, key in ipairs(KEYS) do
              local reply
              if ARGV[i] == 'hash' then reply = redis.pcall('HGET', key, 'live')
              else reply = redis.pcall('GETRANGE', key, 0, 0) end
              if type(reply) == 'table' and reply.err and string.find(reply.err, 'WRONGTYPE', 1, true) then
                local named = redis.pcall('TYPE', key)
                return key .. ' ' .. ARGV[i] .. ' ' .. ((type(named) == 'table' and named.ok) or '')
              end
            end
            return ''
            """);

    private final RedisFilterKeys keys;
    private final RedisFilterIdentity configured;
    private final Duration timeout;

    public RedisKeyTypes(RedisFilterKeys keys, RedisFilterIdentity configured, Duration timeout) {
        this.keys = keys;
        this.configured = configured;
        this.timeout = timeout;
    }

    /**
     * Looks at the keys {@code view} names (before the first refresh, the metadata of the configured shards only).
     *
     * @return the first key found of another type, as a {@code WRONGTYPE} refusal, its name with {@code *} for the
     * seed of a bitmap (a {@code SCAN} pattern for it); {@code null} when there is none
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not answer
     */
    @Nullable RedisDenial find(RedisCommands via, RedisFilterView view) {
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        for (Map<String, String> shard : expectedTypes(view)) {
            List<String> names = List.copyOf(shard.keySet());
            List<String> types = List.copyOf(shard.values());
            replies.add(via.send(port -> port.eval(FIND, names, types)));
        }
        RedisDenial found = null;
        for (CompletableFuture<Object> reply : replies) {
            String answer = new String((byte[]) via.await(reply, timeout), StandardCharsets.UTF_8);
            if (found == null && !answer.isEmpty()) {
                // From the end: a key prefix may hold spaces.
                int beforeType = answer.lastIndexOf(' ');
                int beforeExpected = answer.lastIndexOf(' ', beforeType - 1);
                String key = SEED.matcher(answer.substring(0, beforeExpected)).replaceFirst("$1*");
                found = RedisDenial.wrongType(key, answer.substring(beforeType + 1),
                        answer.substring(beforeExpected + 1, beforeType));
            }
        }
        return found;
    }

    /** Per shard, in one hash slot each, the keys to try and the type each should have. */
    private List<Map<String, String>> expectedTypes(RedisFilterView view) {
        RedisFilterIdentity live = (view.live != null) ? view.live : view.liveForAdds;
        RedisFilterIdentity next = view.next;
        int shards = Math.max(configured.shards(), Math.max((live != null) ? live.shards() : 0,
                (next != null) ? next.shards() : 0));
        List<Map<String, String>> perShard = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put(keys.meta(shard), HASH);
            // A kind whose data keys are a type of the server's is not asked here: its own commands answer WRONGTYPE.
            if (live != null && shard < live.shards() && live.layout().dataKeyType() != null) {
                expected.put(keys.bits(shard, live), STRING);
            }
            if (next != null && shard < next.shards() && next.layout().dataKeyType() != null) {
                expected.put(keys.next(shard, next), STRING);
            }
            if (shard == 0) {
                expected.put(keys.lock(), STRING);
            }
            if (view.generation != null && view.generation.identity().layout().dataKeyType() != null) {
                for (String dataKey : view.generation.dataKeysIn(shard)) {
                    expected.putIfAbsent(dataKey, STRING); // a layered generation's layers besides layer 0
                }
            }
            perShard.add(expected);
        }
        return perShard;
    }
}
