package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a kind whose filter lives in a data type of the server ({@code BF.*} of RedisBloom, Redis 8 or Valkey) is
 * built: inside Redis, keys sent in batches into the generation being built, since its bits cannot be computed in the
 * JVM and uploaded. The engine keeps the rest of a build as for the other kinds: the lock, the announcement from which
 * adds reach both generations, the grace, the fenced swap.
 *
 * <p>Usage: {@code ServerBuild build = kind.serverBuild(); if (build != null) send(build.begin(...)); ... }
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface ServerBuild {

    /**
     * Begins a generation as {@link RedisScripts#BEGIN} does (same reply: the stale marks so far, -1 when fenced
     * out), creating the next filter with the server's command.
     *
     * @param sizing the keys it is built for, at the error rate
     */
    ScriptCall begin(String meta, String next, RedisFilterIdentity target, FilterSizing sizing, String epoch,
            long fence);

    /**
     * Adds keys of the key source to the generation being built, never creating it: it fails once that is gone
     * (evicted, flushed), so a build cannot swap in a filter that lacks them.
     *
     * @return how many of the keys were new to it
     */
    CompletableFuture<Long> insert(RedisPort port, String next, List<Object> keys);

    /**
     * Swaps a generation built in Redis in, as {@link RedisScripts#FINISH} does and with its KEYS, ARGV and replies;
     * ARGV[11] is how many keys the build found new, and -1 is the answer when the generation holds fewer (part of it
     * was lost).
     */
    LuaScript finish();
}
