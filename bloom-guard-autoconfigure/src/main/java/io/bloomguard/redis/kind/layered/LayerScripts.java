package io.bloomguard.redis.kind.layered;

import io.bloomguard.redis.kind.AddReply;
import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.port.LuaScript;

/**
 * The Lua scripts of a redis filter that grows by layers ({@link Layers}). Its keys share one hash slot, so
 * each runs on Redis Cluster. Reading the layer count and the layers in one script is what lets an instance that
 * has not yet seen a new layer know it has not.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class LayerScripts {

    private LayerScripts() {
    }

    /**
     * Checks one key. KEYS: meta, then the bitmap of each layer the caller knows of. ARGV: the first and last byte of
     * the key's block in each of those layers.
     *
     * <p>Returns the stored layer count (as text), then the block of each stored layer (empty for a layer whose
     * bitmap is gone); the count alone when there are more layers than the caller sent keys for.
     */
    public static final LuaScript CHECK = LuaScript.of("check-layers", LuaScript.Result.LIST, """
            local n = tonumber(redis.call('HGET', KEYS[1], 'layers') or '1')
            local out = {tostring(n)}
            if n > #KEYS - 1 then return out end
            for i = 1, n do
              out[i + 1] = redis.call('GETRANGE', KEYS[i + 1], ARGV[2 * i - 1], ARGV[2 * i])
            end
            return out
            """);

    /**
     * Adds keys: each key not already held by an older layer goes into the newest, and into the next generation's
     * layer 0 while a rebuild runs. Counts the bits set in the newest layer ({@code layer-bits}); once they reach what
     * the layer holds its keys with, creates the next layer at full size and counts it ({@code layers}), so that from
     * then on puts go there and checks read it.
     *
     * <p>For near copies that read in order ({@link io.bloomguard.redis.engine.RedisAddFeed}), it publishes the newest layer's positions of every
     * key (a superset of the bits it sets: a key an older layer holds sets none), before setting them, and {@code "-"}
     * when it adds a layer, as {@link RedisScripts#ADD} does.
     *
     * <p>KEYS: meta, each live layer's bitmap oldest first, the next bitmap, where a new layer goes, the channel. ARGV: the live and
     * next fingerprints the caller computed offsets for ('' for none), the live layer count, the set bits at which
     * the newest layer is full, the last bit of a new layer (-1 when none may be built), the key count, k and key
     * count for the next generation, k of each live layer; then per key, its offsets in each live layer; then the
     * offsets for the next generation; then the record the add is counted under ({@link RedisScripts#ACKNOWLEDGED}).
     *
     * <p>A next generation that counts (a rebuild by an instance configured {@code type: counting}) has its counters
     * incremented, as the counting kind's {@code add-counting} does: bits set at counter positions would leave the keys out of
     * it once it is swapped in.
     *
     * <p>Every live layer must exist: SETBIT would create a missing one afresh, short and zero-filled, and checks
     * would then read zeros for the keys it held. A layer gone leaves the live generation untouched, as a missing
     * layer 0 does, and is reported as missing (-1), unless the next generation took the keys.
     *
     * <p>Returns as {@link RedisScripts#ADD} does: keys that changed the newest layer (or the next generation while
     * there is no whole live one), -1 when neither exists, -2 when the caller's view of the generations or of the
     * layers is out of date; plus {@link AddReply#LAYER_ADDED} when it added a layer, so that the caller reads its
     * view again at once.
     */
    public static final LuaScript ADD = LuaScript.of("add-layers", LuaScript.Result.INTEGER, """
            local live = redis.call('HGET', KEYS[1], 'live') or ''
            local nxt = redis.call('HGET', KEYS[1], 'next') or ''
            if live ~= ARGV[1] or nxt ~= ARGV[2] then return -2 end
            local layers = tonumber(ARGV[3])
            if live ~= '' and tonumber(redis.call('HGET', KEYS[1], 'layers') or '1') ~= layers then return -2 end
            local count, nextK, nextCount = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
            local ks, perKey = {}, 0
            for i = 1, layers do
              ks[i] = tonumber(ARGV[8 + i])
              perKey = perKey + ks[i]
            end
            local pos = 9 + layers
            """ + RedisScripts.SET_KEYS + RedisScripts.COUNT_KEYS + """
            local channel = KEYS[4 + layers]
            local publish = channel and redis.call('HGET', KEYS[1], 'publish')
            local result = -1
            local whole = live ~= ''
            for i = 1, layers do
              if whole and redis.call('EXISTS', KEYS[1 + i]) == 0 then whole = false end
            end
            if whole then
              if publish and count > 0 then
                local skip, newest = perKey - ks[layers], {KEYS[1 + layers]}
                local p = pos
                for _ = 1, count do
                  p = p + skip
                  for j = 0, ks[layers] - 1 do newest[#newest + 1] = ARGV[p + j] end
                  p = p + ks[layers]
                end
                redis.call(publish, channel, table.concat(newest, ' '))
              end
              result = 0
              local newest = KEYS[1 + layers]
              local setBits = 0
              for _ = 1, count do
                local held = false
                for i = 1, layers - 1 do
                  if not held then
                    held = true
                    for j = 0, ks[i] - 1 do
                      if redis.call('GETBIT', KEYS[1 + i], ARGV[pos + j]) == 0 then
                        held = false
                        break
                      end
                    end
                  end
                  pos = pos + ks[i]
                end
                if not held then
                  local new = 0
                  for j = 0, ks[layers] - 1 do
                    if redis.call('SETBIT', newest, ARGV[pos + j], 1) == 0 then new = new + 1 end
                  end
                  if new > 0 then
                    result = result + 1
                    setBits = setBits + new
                  end
                end
                pos = pos + ks[layers]
              end
              if setBits > 0 then
                local full = redis.call('HINCRBY', KEYS[1], 'layer-bits', setBits)
                if full >= tonumber(ARGV[4]) and tonumber(ARGV[5]) >= 0 then
                  local grown = KEYS[3 + layers]
                  redis.call('DEL', grown)
                  redis.call('SETBIT', grown, ARGV[5], 0)
                  redis.call('HSET', KEYS[1], 'layers', layers + 1, 'layer-bits', 0)
                  if publish then redis.call(publish, channel, '-') end
                  result = result + 4294967296
                end
              end
            else
              if live ~= '' and channel then
            """ + RedisScripts.OUT_OF_STEP.formatted("channel") + """
              end
              pos = pos + count * perKey
            end
            local nextKey = KEYS[2 + layers]
            if nxt ~= '' and redis.call('EXISTS', nextKey) == 1 then
              local changed
              if string.sub(nxt, -3) == '.c4' then
                changed = increment(nextKey, nextK, nextCount)
              else
                changed = set(nextKey, nextK, nextCount)
              end
              if result < 0 then result = changed end
            end
            """ + RedisScripts.ACKNOWLEDGED);
}
