package io.bloomguard.redis.kind;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.Hash128;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * A layout with no layers: one generation is its blocks split over shards, a key is checked with one {@code GETRANGE}
 * of its block ({@link BlockCheck}), and nothing is stored beside the shards.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public abstract class UnlayeredKind extends BlockKind {

    @Override
    public Generation open(RedisFilterIdentity identity, @Nullable FilterSizing sizing, int layerCount,
            RedisFilterKeys keys, String build) {
        return new BlockGeneration(this, identity, keys, build);
    }

    @Override
    public Adds adds(@Nullable RedisFilterIdentity live, @Nullable Generation generation,
            @Nullable RedisFilterIdentity next, RedisFilterKeys keys) {
        return new BlockAdds(live, next, keys);
    }

    /** See {@link Generation#removal}: none unless the kind keeps counts. */
    protected @Nullable ScriptCall removal(BlockGeneration generation, Object key, String epoch, String id) {
        return null;
    }

    /** An empty near copy of a generation of this kind. */
    protected abstract CopiedBits newCopy(RedisFilterIdentity identity, FilterSizing sizing);

    /** Whether a block read with {@code GETRANGE} holds all {@code hashCount} of a key's positions. */
    protected abstract boolean blockHolds(byte[] block, Hash128 hash, int hashCount);

    /**
     * The script that checks many keys of one shard. KEYS: the bitmap. ARGV: k, then k offsets per key. Returns a
     * character per key, {@code 1} held or {@code 0}, or {@code "-"} when the bitmap is gone.
     */
    protected abstract LuaScript checkAll();

    @Override
    public List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers) {
        return List.of();
    }

    @Override
    public int layerCount(@Nullable Generation live) {
        return 1;
    }
}
