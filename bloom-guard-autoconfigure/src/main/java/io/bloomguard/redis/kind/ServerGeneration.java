package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A live generation of a {@link ServerKind}: one filter of the server's, {@code <prefix>{name}:bits:<fingerprint>}. A
 * key is checked with one script (the kind's {@code check}: {@code EXISTS}, then the server's command), a batch with
 * one {@code checkAll} script, and a filter that is gone answers "might contain" and tells the filter it is not ready.
 */
final class ServerGeneration implements Generation {

    private final ServerKind kind;
    private final RedisFilterIdentity identity;
    private final String build;
    private final String filter;
    private final RedisFilterKeys keys;

    ServerGeneration(ServerKind kind, RedisFilterIdentity identity, RedisFilterKeys keys, String build) {
        this.kind = kind;
        this.identity = identity;
        this.build = build;
        this.filter = keys.bits(0, identity);
        this.keys = keys;
    }

    @Override
    public RedisFilterIdentity identity() {
        return identity;
    }

    @Override
    public String build() {
        return build;
    }

    @Override
    public int layerCount() {
        return 1;
    }

    @Override
    public boolean readable() {
        return true;
    }

    @Override
    public List<String> dataKeys() {
        return List.of(filter);
    }

    @Override
    public List<String> dataKeysIn(int shard) {
        return (shard == 0) ? List.of(filter) : List.of();
    }

    @Override
    public KeyCheck<?> check(Object key, KeyCheck.Events events) {
        String text = KeyCanonicalizer.canonicalText(key);
        return new KeyCheck<Long>() {
            @Override
            public CompletableFuture<Long> send(RedisPort port) {
                return port.eval(kind.scripts().check(), List.of(filter), List.of(text)).thenApply(Long.class::cast);
            }

            @Override
            public boolean answer(Long reply) {
                if (reply < 0) {
                    events.bitmapMissing(ServerGeneration.this);
                    return true;
                }
                return reply != 0;
            }
        };
    }

    @Override
    public boolean[] checkAll(List<?> keys, boolean[] held, RedisCalls calls, KeyCheck.Events events) {
        boolean[] answers = new boolean[keys.size()];
        List<Integer> asked = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < answers.length; i++) {
            if (held[i]) {
                answers[i] = true;
            }
            else {
                asked.add(i);
                texts.add(KeyCanonicalizer.canonicalText(keys.get(i)));
            }
        }
        if (asked.isEmpty()) {
            return answers;
        }
        byte[] reply = (byte[]) calls.await(calls.send(port -> port.eval(kind.scripts().checkAll(),
                List.of(filter), texts)));
        boolean missing = reply.length > 0 && reply[0] == '-';
        if (missing) {
            events.bitmapMissing(this);
        }
        for (int j = 0; j < asked.size(); j++) {
            answers[asked.get(j)] = missing || reply[j] == '1';
        }
        return answers;
    }

    @Override
    public Fill readFill(RedisCaller via, FilterSizing sizing) {
        long keys = via.call(port -> port.eval(kind.scripts().count(), List.of(filter), List.of())
                .thenApply(Long.class::cast));
        if (keys < 0) {
            return new Fill(0, sizing.errorRate(), -1);
        }
        return new Fill(keys, kind.falsePositiveProbability(keys, sizing), -1);
    }

    @Override
    public CopiedBits newCopy(FilterSizing sizing) {
        throw new UnsupportedOperationException("a native filter (" + kind.type() + ") keeps its bits in the server's"
                + " own layout: no near copy can read them");
    }

    /** See {@link Generation#removal}: the kind's {@code remove} script, on the live filter only. */
    @Override
    public @Nullable ScriptCall removal(Object key, String epoch, String id) {
        LuaScript remove = kind.scripts().remove();
        if (remove == null) {
            return null;
        }
        return new ScriptCall(remove, List.of(keys.meta(0), filter, keys.adds(0), keys.removal(0, id)),
                List.of(identity.fingerprint(), epoch, KeyCanonicalizer.canonicalText(key)), List.of(key));
    }
}
