package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The scripts of a {@link ServerKind}, each of which reads a filter that is gone as unknown, never as absent.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param check    KEYS the filter, ARGV a key's text: 1 might contain, 0 absent, -1 gone
 * @param checkAll KEYS the filter, ARGV keys' texts: a character per key, '1' or '0', or '-' when gone
 * @param count    KEYS the filter: the keys it holds, -1 when gone
 * @param add      KEYS and replies of {@link RedisScripts#ADD}; ARGV the live and next fingerprints, the counts of keys
 *                 for live and for next, their texts, then an optional record ({@link RedisScripts#ACKNOWLEDGED})
 * @param remove   KEYS and replies of a counting filter's remove; ARGV the live fingerprint, the epoch, the key's text;
 *                 {@code null} for a kind that cannot remove
 * @hidden
 */
public record ServerScripts(LuaScript check, LuaScript checkAll, LuaScript count, LuaScript add,
        @Nullable LuaScript remove) {
}
