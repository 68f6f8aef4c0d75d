package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * How a {@link ServerKind}'s generation is built: inside Redis, keys sent in batches into the generation being built,
 * since its bits cannot be computed in the JVM and uploaded. The engine keeps the rest of a build as for the other
 * kinds: the lock, the announcement from which adds reach both generations, the grace, the fenced swap.
 *
 * <p>Usage: {@code ServerBuild build = kind.serverBuild(); if (build != null) send(build.begin(...)); ... }
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param begin    {@link ServerScripts#BEGIN} with the kind's reserve command
 * @param insert   KEYS the generation being built, ARGV keys' texts: adds them without ever creating it, and returns
 *                 how many were new, or -1 once it is gone (evicted, flushed), so a build cannot swap in a filter
 *                 that lacks them
 * @param finish   {@link ServerScripts#FINISH} with the kind's count of keys
 * @param capacity the capacity a filter of that sizing is reserved with
 * @param reserved the reserve command's argument besides the capacity (ARGV[5] of {@code begin})
 * @hidden
 */
public record ServerBuild(LuaScript begin, LuaScript insert, LuaScript finish, ToLongFunction<FilterSizing> capacity,
        Function<FilterSizing, String> reserved) {

    /** Begins a generation as {@link RedisScripts#BEGIN} does (same reply), creating the next filter empty. */
    public ScriptCall begin(String meta, String next, RedisFilterIdentity target, FilterSizing sizing, String epoch,
            long fence) {
        return new ScriptCall(begin, List.of(meta, next), List.of(target.fingerprint(),
                Long.toString(capacity.applyAsLong(sizing)), epoch, Long.toString(fence), reserved.apply(sizing)),
                List.of());
    }

    /** Adds keys of the key source to the generation being built: how many were new, -1 when it is gone. */
    public CompletableFuture<Long> insert(RedisPort port, String next, List<Object> keys) {
        List<String> texts = new ArrayList<>(keys.size());
        for (Object key : keys) {
            texts.add(KeyCanonicalizer.canonicalText(key));
        }
        return port.eval(insert, List.of(next), texts).thenApply(Long.class::cast);
    }
}
