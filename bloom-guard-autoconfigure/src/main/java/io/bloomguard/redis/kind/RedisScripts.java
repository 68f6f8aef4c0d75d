package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;

/**
 * The Lua scripts of the Redis backend. Each touches the keys of one shard only (one hash slot), so each runs
 * on Redis Cluster. The hot check is not a script: it is one {@code GETRANGE} of the key's 64-byte block.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class RedisScripts {

    private RedisScripts() {
    }

    /**
     * Lua, for a script that declares {@code local pos} (the next ARGV to read) before it: {@code set(key, k, count)}
     * sets the bits of {@code count} keys, {@code k} offsets each, in bitmap {@code key}, and returns how many keys
     * changed it.
     */
    public static final String SET_KEYS = """
            local function set(key, k, count)
              local changed = 0
              for _ = 1, count do
                local new = 0
                for _ = 1, k do
                  if redis.call('SETBIT', key, ARGV[pos], 1) == 0 then new = 1 end
                  pos = pos + 1
                end
                changed = changed + new
              end
              return changed
            end
            """;

    /**
     * Lua beside {@link #SET_KEYS}: {@code increment(key, k, count)} increments, saturating at 15, the {@code u4} counters
     * at the next {@code count} keys' positions of a counting generation (ARGV from {@code pos}, {@code k} per key), and
     * says how many keys are new (a counter went from 0 to 1): for a script that may meet a counting next generation.
     */
    public static final String COUNT_KEYS = """
            local function increment(key, k, count)
              local changed = 0
              for _ = 1, count do
                local new = 0
                local fields = {key, 'OVERFLOW', 'SAT'}
                for _ = 1, k do
                  fields[#fields + 1] = 'INCRBY'
                  fields[#fields + 1] = 'u4'
                  fields[#fields + 1] = '#' .. ARGV[pos]
                  fields[#fields + 1] = 1
                  pos = pos + 1
                end
                for _, counted in ipairs(redis.call('BITFIELD', unpack(fields))) do
                  if counted == 1 then new = 1 end
                end
                changed = changed + new
              end
              return changed
            end
            """;

    /**
     * Lua that opens an add script ({@link #ADD}, the counting kind's {@code add-counting}): from the shard's metadata and the
     * caller's view (KEYS: meta, live bitmap, next bitmap, and the bitmap the next generation is live under once
     * swapped; ARGV: the live and next fingerprints the caller computed offsets for, '' for none), sets
     * {@code liveKey}, where the caller's live offsets go, and {@code nextKey}, where its next offsets go
     * ({@code false}: nowhere), or returns -2 when the view cannot place them.
     *
     * <p>Each shard is begun (shard 0 first) and swapped (shard 0 last) by a command of its own, while instances read
     * shard 0's metadata only: a view read at any moment of a build is up to date for shard 0, and may be one step
     * ahead of another shard (not begun yet) or one step behind it (swapped already). Both steps are placed, not
     * refused:
     * <ul>
     * <li>not begun yet: the live offsets go to the live bitmap, as if the add had come just before the shard was
     * begun (the build's read of the key source comes after every shard is begun);</li>
     * <li>swapped already: the next offsets go to the bitmap swapped in, where every instance's check of that shard
     * reads; the caller's live bitmap there is gone, or (same fingerprint) is that one. Refused, they would be buffered
     * while the instances that had read the swap rejected them.</li>
     * </ul>
     * A shard that holds a generation the caller does not know of is refused: only a refresh can give its offsets.
     */
    public static final String PLACE = """
            local live = redis.call('HGET', KEYS[1], 'live') or ''
            local nxt = redis.call('HGET', KEYS[1], 'next') or ''
            local liveKey = ARGV[1] ~= '' and KEYS[2]
            local nextKey = ARGV[2] ~= '' and KEYS[3]
            if live ~= ARGV[1] or nxt ~= ARGV[2] then
              if nxt ~= '' or ARGV[2] == '' then return -2 end
              if live == ARGV[1] and live ~= '' then
                nextKey = false
              elseif live == ARGV[2] then
                liveKey, nextKey = false, KEYS[4]
              else
                return -2
              end
            end
            """;

    /**
     * Lua for an add script (KEYS[1] the shard's metadata, KEYS[5] its channel): {@code published(key, from, count)}
     * publishes {@code "<key> ARGV[from] ... ARGV[from + count - 1]"} once an instance asked for it
     * ({@link #PUBLISH_ADDS}), with the command it named.
     */
    public static final String PUBLISHED = """
            local publish = KEYS[5] and redis.call('HGET', KEYS[1], 'publish')
            local function published(key, from, count)
              if publish and count > 0 then
                redis.call(publish, KEYS[5], key .. ' ' .. table.concat(ARGV, ' ', from, from + count - 1))
              end
            end
            """;

    /**
     * Lua that tells every near copy of the shard that it is out of step ({@code "-"} on the channel, whose name the
     * format's argument gives): with the command the shard's metadata names, or, when it names none (a filter created
     * afresh, after a {@code FLUSHALL} say), with both, failures ignored.
     */
    public static final String OUT_OF_STEP = """
                local announced = redis.call('HGET', KEYS[1], 'publish')
                if announced then redis.pcall(announced, %1$s, '-') else
                  redis.pcall('PUBLISH', %1$s, '-')
                  redis.pcall('SPUBLISH', %1$s, '-')
                end
            """;

    /**
     * Lua, in every add script before it returns a {@code result} of 0 or more: adds {@link AddReply#WRITERS_WAIT} when
     * the shard's lease state is not {@code off} (a leased near copy elsewhere may hold a lease whose bits lack this
     * add), and the lease it names in milliseconds times {@link AddReply#LEASE_MILLIS}. Read in the same step as the
     * bits are set: a switch comes wholly before or wholly after the add.
     */
    private static final String LEASED = """
            local lease = redis.call('HGET', KEYS[1], 'lease')
            if result >= 0 and lease ~= 'off' then
              result = result + 8589934592 + 17179869184 * tonumber(string.match(lease or '', ' (%d+)$') or '0')
            end
            """;

    /**
     * Lua that ends an add script whose {@code result} is set: counts the add in the shard's metadata under the record
     * the caller named in the last ARGV ({@code acks:<instance>.<n>}), when the add wrote ({@code result >= 0}), and
     * returns the result. The count is written in the same step as the bits, so a server that has an instance's count
     * of n has its first n adds: one whose count went back lost adds it had acknowledged (a failover to a replica that
     * had not received them, a restart from an older file). A caller that names no record counts nothing. Then the
     * lease flag ({@link #LEASED}).
     */
    public static final String ACKNOWLEDGED = """
            if result >= 0 and string.sub(ARGV[#ARGV], 1, 5) == 'acks:' then
              redis.call('HINCRBY', KEYS[1], ARGV[#ARGV], 1)
            end
            """ + LEASED + """
            return result
            """;

    /**
     * Adds keys to a shard: sets their bits in the live bitmap and, while a rebuild runs, in the next one too,
     * so no add is lost across the swap; where a shard is a step ahead of or behind the caller's view, see
     * {@link #PLACE}.
     *
     * <p>For near copies that read in order ({@link io.bloomguard.redis.engine.RedisAddFeed}), it publishes on the shard's channel what it sets in
     * a live bitmap, {@code "<bitmap> <offset> <offset> ..."}, once an instance has asked for it ({@link #PUBLISH_ADDS}),
     * and before setting the bits: a publish refused (an ACL without the channel) fails the add, which changes nothing.
     * A live bitmap that is gone is published as {@code "-"} whoever asked: copies stop answering absent keys.
     *
     * <p>KEYS: meta, live bitmap, next bitmap, the next generation's live bitmap, the shard's channel. ARGV: the live
     * and next fingerprints the caller computed offsets for ('' for none), then k and key count for live, k and key
     * count for next, then k offsets per key for live followed by those for next (the two generations may differ in
     * size, so in k and in which keys fall in this shard), then the record the add is counted under ({@link #ACKNOWLEDGED}).
     *
     * <p>Returns how many keys changed the live bitmap (or the next one while there is no live bitmap): keys
     * that were certainly new. -1 when neither bitmap exists (the add went nowhere), -2 when the caller's view
     * of the live / next generations is out of date (refresh, retry).
     */
    public static final LuaScript ADD = LuaScript.of("add", LuaScript.Result.INTEGER, PLACE + """
            local pos = 7
            """ + SET_KEYS + """
            local liveK, liveCount = tonumber(ARGV[3]), tonumber(ARGV[4])
            local nextK, nextCount = tonumber(ARGV[5]), tonumber(ARGV[6])
            """ + PUBLISHED + """
            local result = -1
            if liveKey and redis.call('EXISTS', liveKey) == 1 then
              published(liveKey, pos, liveK * liveCount)
              result = set(liveKey, liveK, liveCount)
            else
              if liveKey and KEYS[5] then
            """ + OUT_OF_STEP.formatted("KEYS[5]") + """
              end
              pos = pos + liveK * liveCount
            end
            if nextKey and redis.call('EXISTS', nextKey) == 1 then
              if nextKey == KEYS[4] then published(nextKey, pos, nextK * nextCount) end
              local changed = set(nextKey, nextK, nextCount)
              if result < 0 then result = changed end
            end
            """ + ACKNOWLEDGED);

    /**
     * Asks the add scripts of a shard to publish what they set ({@link #ADD}), from now on, with the command in ARGV[1]
     * ({@code PUBLISH}, or {@code SPUBLISH} on a cluster): an instance whose near copy reads in order sends it before it
     * reads the bitmap whole. Only for a shard that holds a filter (a filter that is gone keeps no flag, and a copy of
     * it cannot be in step). KEYS: meta. Returns 1 when set. ({@code HGET}, not {@code HEXISTS}: the documented ACL
     * grants it.)
     */
    public static final LuaScript PUBLISH_ADDS = LuaScript.of("publish-adds", LuaScript.Result.INTEGER, """
            if not redis.call('HGET', KEYS[1], 'live') then return 0 end
            redis.call('HSET', KEYS[1], 'publish', ARGV[1])
            return 1
            """);

    /**
     * Checks many keys of one shard. KEYS: live bitmap. ARGV: k, then k offsets per key. Returns one character
     * per key, '1' (might contain) or '0' (absent), or '-' when the bitmap does not exist.
     */
    public static final LuaScript CHECK_ALL = LuaScript.of("check-all", LuaScript.Result.BULK, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return '-' end
            local k = tonumber(ARGV[1])
            local answers = {}
            local pos = 2
            for key = 1, (#ARGV - 1) / k do
              local hit = '1'
              for _ = 1, k do
                if redis.call('GETBIT', KEYS[1], ARGV[pos]) == 0 then hit = '0' end
                pos = pos + 1
              end
              answers[key] = hit
            end
            return table.concat(answers)
            """);

    /**
     * Starts building a generation of a shard: creates the next bitmap at full size (unless one for the same
     * fingerprint exists already: its bits are adds that arrived since, and are kept) and records it in the
     * metadata, from which moment every add also reaches it.
     *
     * <p>It sets the shard's build epoch to ARGV[3], a value of the loader's that no earlier build used: an instance
     * that put a key at another epoch, in a transaction still open, puts it again once its row has committed, since
     * this build's read of the key source may not show it.
     *
     * <p>KEYS: meta, next bitmap. ARGV: next fingerprint, last bit offset of the shard, the new epoch, the loader's
     * fencing token ({@link #LOCK}). Returns how many stale marks the shard's metadata has counted so far
     * ({@link #MARK_STALE}), which the loader hands to {@link #FINISH}: a mark made after this moment may be for a key
     * its read of the key source misses; or -1, changing nothing, when a loader with a later token has begun it.
     */
    public static final LuaScript BEGIN = LuaScript.of("begin", LuaScript.Result.INTEGER, """
            if tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') > tonumber(ARGV[4]) then return -1 end
            redis.call('HSET', KEYS[1], 'fence', ARGV[4])
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then
              redis.call('DEL', KEYS[2])
              redis.call('SETBIT', KEYS[2], ARGV[2], 0)
              redis.call('HSET', KEYS[1], 'next', ARGV[1])
            end
            redis.call('HSET', KEYS[1], 'epoch', ARGV[3])
            if not redis.call('HGET', KEYS[1], 'live') then redis.call('HSET', KEYS[1], 'state', 'loading') end
            return tonumber(redis.call('HGET', KEYS[1], 'stale-marks') or '0')
            """);

    /**
     * Swaps a built generation in: merges the uploaded bits into the next bitmap (which holds the adds that
     * arrived during the build), renames it to the live name, deletes the old live bitmap if its name differs,
     * and records the new generation. Atomic: a check sees the old bitmap or the new one, never neither.
     *
     * <p>The stale mark is cleared only if no instance marked the filter stale since the loader's {@link #BEGIN}:
     * a mark made during the build may be for a record committed after the loader read its key source, so the
     * new generation stays marked stale, and is rebuilt again.
     *
     * <p>A filter that grows by layers (the layered kind) starts the generation with one layer, layer 0 being the
     * bitmap swapped in; the old generation's other layers are deleted.
     *
     * <p>KEYS: meta, next bitmap, upload, new live bitmap, old live bitmap, then the old generation's layers past
     * layer 0. ARGV: fingerprint, then the metadata
     * fields m, k, seed, layout, shards, expected-size, error-rate, loaded-at, then the stale marks {@link #BEGIN}
     * returned, then how many bits are set in what the loader uploaded, then the type ({@code bloom} or
     * {@code counting}, whose counters the loader has merged already: {@code merge-counters}), then
     * {@code 1} when the filter grows by layers, then the shard's channel, on which a swap is published as {@code "-"}
     * once an instance asked for publishing ({@link #PUBLISH_ADDS}): near copies of the old generation stop answering
     * absent keys, then the new build epoch (see {@link #BEGIN}), then the loader's fencing token. Returns -3, swapping
     * nothing, when a loader with another token has begun the shard since (this one's lock expired), else 1 when swapped, 2 when swapped
     * but still marked stale, 0 when the next generation is no longer this build's (another loader took over and
     * finished first), or -1, swapping nothing, when the upload holds fewer bits than were uploaded: evicted (it is
     * the one large key with an expiry, so a {@code volatile-*} policy takes it first), partly evicted and recreated
     * zero-filled by a later chunk, or lost in a failover.
     */
    public static final LuaScript FINISH = LuaScript.of("finish", LuaScript.Result.INTEGER, """
            if (redis.call('HGET', KEYS[1], 'fence') or '0') ~= ARGV[16] then
              redis.call('DEL', KEYS[3])
              return -3
            end
            if redis.call('HGET', KEYS[1], 'next') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then
              redis.call('DEL', KEYS[3])
              return 0
            end
            if redis.call('BITCOUNT', KEYS[3]) ~= tonumber(ARGV[11]) then
              redis.call('DEL', KEYS[3])
              return -1
            end
            if redis.call('EXISTS', KEYS[3]) == 1 then
              redis.call('BITOP', 'OR', KEYS[2], KEYS[2], KEYS[3])
              redis.call('DEL', KEYS[3])
            end
            if KEYS[5] ~= KEYS[4] then redis.call('DEL', KEYS[5]) end
            redis.call('RENAME', KEYS[2], KEYS[4])
            redis.call('HDEL', KEYS[1], 'next')
            local result = 2
            if (redis.call('HGET', KEYS[1], 'stale-marks') or '0') == ARGV[10] then
              redis.call('HDEL', KEYS[1], 'stale')
              result = 1
            end
            redis.call('HSET', KEYS[1], 'live', ARGV[1], 'state', 'ready', 'm', ARGV[2], 'k', ARGV[3], 'seed', ARGV[4],
              'layout', ARGV[5], 'shards', ARGV[6], 'expected-size', ARGV[7], 'error-rate', ARGV[8], 'loaded-at', ARGV[9],
              'type', ARGV[12])
            for i = 6, #KEYS do redis.call('DEL', KEYS[i]) end
            if ARGV[13] == '1' then
              redis.call('HSET', KEYS[1], 'layers', 1, 'layer-bits', redis.call('BITCOUNT', KEYS[4]))
            else
              redis.call('HDEL', KEYS[1], 'layers', 'layer-bits')
            end
            redis.call('HINCRBY', KEYS[1], 'generation', 1)
            redis.call('HSET', KEYS[1], 'epoch', ARGV[15])
            local announced = ARGV[14] and redis.call('HGET', KEYS[1], 'publish')
            if announced then redis.pcall(announced, ARGV[14], '-') end
            return result
            """);

    /**
     * Takes the load lock. KEYS: lock, fence counter (a hash: no command beyond those the backend sends), shard 0's
     * metadata. ARGV: owner, ttl in ms. Returns the lock's fencing token when taken (1 and up, higher with each
     * taking, and above the last one a build recorded, should the counter alone be lost), 0 when another instance
     * holds it. A build hands its token to {@link #BEGIN} and {@link #FINISH}: once a later holder has begun a shard,
     * an earlier one whose lock expired meanwhile swaps nothing into it.
     */
    public static final LuaScript LOCK = LuaScript.of("lock", LuaScript.Result.INTEGER, """
            if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
            local token = redis.call('HINCRBY', KEYS[2], 'taken', 1)
            local recorded = tonumber(redis.call('HGET', KEYS[3], 'fence') or '0')
            if token <= recorded then
              token = recorded + 1
              redis.call('HSET', KEYS[2], 'taken', token)
            end
            return token
            """);

    /** KEYS: lock. ARGV: owner, ttl in ms. Extends the lock if the owner still holds it; returns 1 if so. */
    public static final LuaScript RENEW = LuaScript.of("renew", LuaScript.Result.INTEGER, """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 0
            """);

    /** KEYS: lock. ARGV: owner. Releases the lock if the owner holds it. */
    public static final LuaScript RELEASE = LuaScript.of("release", LuaScript.Result.INTEGER, """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """);

    /**
     * Marks the stored filter stale: adds were lost, and no instance should trust it until a rebuild that began
     * after the mark (which clears it). Counts the mark, so that a build that began before it leaves it in place.
     * KEYS: meta of shard 0. ARGV: reason. Returns the count of marks so far.
     */
    public static final LuaScript MARK_STALE = LuaScript.of("mark-stale", LuaScript.Result.INTEGER, """
            redis.call('HSET', KEYS[1], 'stale', ARGV[1])
            return redis.call('HINCRBY', KEYS[1], 'stale-marks', 1)
            """);
}
