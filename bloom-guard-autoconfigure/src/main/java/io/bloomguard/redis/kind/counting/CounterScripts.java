package io.bloomguard.redis.kind.counting;

import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.port.LuaScript;

/**
 * The Lua scripts of a counting filter in Redis ({@code type: counting}), whose positions are 4-bit counters, the
 * {@code BITFIELD} fields {@code u4 #p} (see {@link CounterCodec}). Like {@link RedisScripts}, each touches the
 * keys of one shard only. The hot check is not a script: it is one {@code GETRANGE} of the key's 256-byte block.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class CounterScripts {

    private CounterScripts() {
    }

    /**
     * {@link RedisScripts#ADD} for generations of either kind: in a counting one (its fingerprint ends with
     * {@code .c4}) each of a key's counters is incremented, saturating at 15, by one {@code BITFIELD} per key, and a
     * key is new when one of its counters went from 0 to 1; in a plain one its bits are set. Same keys, arguments
     * and answers as {@link RedisScripts#ADD}.
     */
    static final LuaScript ADD = LuaScript.of("add-counting", LuaScript.Result.INTEGER, RedisScripts.PLACE + """
            local pos = 7
            local function set(key, counters, k, count)
              local changed = 0
              for _ = 1, count do
                local new = 0
                if counters then
                  local fields = {key, 'OVERFLOW', 'SAT'}
                  for _ = 1, k do
                    fields[#fields + 1] = 'INCRBY'
                    fields[#fields + 1] = 'u4'
                    fields[#fields + 1] = '#' .. ARGV[pos]
                    fields[#fields + 1] = 1
                    pos = pos + 1
                  end
                  for _, count in ipairs(redis.call('BITFIELD', unpack(fields))) do
                    if count == 1 then new = 1 end
                  end
                else
                  for _ = 1, k do
                    if redis.call('SETBIT', key, ARGV[pos], 1) == 0 then new = 1 end
                    pos = pos + 1
                  end
                end
                changed = changed + new
              end
              return changed
            end
            local liveK, liveCount = tonumber(ARGV[3]), tonumber(ARGV[4])
            local nextK, nextCount = tonumber(ARGV[5]), tonumber(ARGV[6])
            """ + RedisScripts.PUBLISHED + """
            local result = -1
            if liveKey and redis.call('EXISTS', liveKey) == 1 then
              published(liveKey, pos, liveK * liveCount)
              result = set(liveKey, string.sub(ARGV[1], -3) == '.c4', liveK, liveCount)
            else
              if liveKey and KEYS[5] then
            """ + RedisScripts.OUT_OF_STEP.formatted("KEYS[5]") + """
              end
              pos = pos + liveK * liveCount
            end
            if nextKey and redis.call('EXISTS', nextKey) == 1 then
              if nextKey == KEYS[4] then published(nextKey, pos, nextK * nextCount) end
              local changed = set(nextKey, string.sub(ARGV[2], -3) == '.c4', nextK, nextCount)
              if result < 0 then result = changed end
            end
            """ + RedisScripts.ACKNOWLEDGED);

    /**
     * Takes one put of a key back from the live generation: if any of its counters is zero the key is certainly not
     * in, and nothing changes; otherwise each counter below 15 is decremented (a saturated one no longer knows how many
     * keys it counts, and stays). Atomic, so a concurrent put or remove never interleaves with it.
     *
     * <p>A remove is published as {@code "r <bitmap> <position> ..."} once an instance asked for it
     * ({@link RedisScripts#PUBLISH_ADDS}), before the counters are lowered: a near copy in step lowers its own.
     *
     * <p>A remove for a delete that began at a build epoch (ARGV[2], '' for none) changes nothing once the shard's
     * epoch is another: a build that began since may never have counted the key. Each remove carries an id of its own
     * (KEYS[4], kept ten minutes): one sent again, after a reconnect say, changes nothing the second time.
     *
     * <p>KEYS: meta, live bitmap, the shard's channel, the remove's id. ARGV: the live fingerprint the caller computed
     * offsets for, the epoch, then the key's k counter offsets. Returns 1 when removed, 0 when a counter was zero,
     * -1 when the bitmap does not exist, -2 when the live generation is no longer the caller's (refresh, retry), -3
     * when the epoch moved or the remove was done already.
     */
    public static final LuaScript REMOVE = LuaScript.of("remove", LuaScript.Result.INTEGER, """
            if (redis.call('HGET', KEYS[1], 'live') or '') ~= ARGV[1] then return -2 end
            if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
            if ARGV[2] ~= '' and (redis.call('HGET', KEYS[1], 'epoch') or '0') ~= ARGV[2] then return -3 end
            if not redis.call('SET', KEYS[4], '1', 'NX', 'PX', 600000) then return -3 end
            local reads = {KEYS[2]}
            for i = 3, #ARGV do
              reads[#reads + 1] = 'GET'
              reads[#reads + 1] = 'u4'
              reads[#reads + 1] = '#' .. ARGV[i]
            end
            local counts = redis.call('BITFIELD', unpack(reads))
            for _, count in ipairs(counts) do
              if count == 0 then return 0 end
            end
            local publish = KEYS[3] and redis.call('HGET', KEYS[1], 'publish')
            if publish then
              redis.call(publish, KEYS[3], 'r ' .. KEYS[2] .. ' ' .. table.concat(ARGV, ' ', 3))
            end
            local writes = {KEYS[2], 'OVERFLOW', 'SAT'}
            for i, count in ipairs(counts) do
              if count < 15 then
                writes[#writes + 1] = 'INCRBY'
                writes[#writes + 1] = 'u4'
                writes[#writes + 1] = '#' .. ARGV[i + 2]
                writes[#writes + 1] = -1
              end
            end
            if #writes > 3 then redis.call('BITFIELD', unpack(writes)) end
            return 1
            """);

    /**
     * Checks many keys of one counting shard. KEYS: live bitmap. ARGV: k, then k counter offsets per key. Returns one
     * character per key, '1' (might contain: every counter above zero) or '0', or '-' when the bitmap does not exist.
     */
    public static final LuaScript CHECK_ALL = LuaScript.of("check-all-counting", LuaScript.Result.BULK, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return '-' end
            local k = tonumber(ARGV[1])
            local answers = {}
            local pos = 2
            for key = 1, (#ARGV - 1) / k do
              local hit = '1'
              for _ = 1, k do
                local counter = tonumber(ARGV[pos])
                local byte = math.floor(counter / 2)
                local value = string.byte(redis.call('GETRANGE', KEYS[1], byte, byte)) or 0
                if counter % 2 == 0 then value = math.floor(value / 16) else value = value % 16 end
                if value == 0 then hit = '0' end
                pos = pos + 1
              end
              answers[key] = hit
            end
            return table.concat(answers)
            """);

    /**
     * Adds the counters a loader uploaded to those of the generation being built (which hold the puts that arrived
     * during the build), one range of bytes at a time, saturating at 15: what {@code BITOP OR} does for bits. Puts
     * are sparse, so the bytes of the next generation that are not zero are found with a pattern search, the
     * uploaded range is written over the range, and those bytes are then written back as sums. About 50 ms a MiB of
     * Redis's time (the search), so callers send 64 KiB at a time.
     *
     * <p>KEYS: next bitmap, upload. ARGV: first byte, byte count. Returns how many bits are set in that range of the
     * upload (the caller adds them up to find an upload that was evicted part way), or -1 when the next bitmap does
     * not exist.
     */
    static final LuaScript MERGE = LuaScript.of("merge-counters", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            local from = tonumber(ARGV[1])
            local last = from + tonumber(ARGV[2]) - 1
            local uploaded = redis.call('GETRANGE', KEYS[2], from, last)
            if not string.find(uploaded, '[^%z]') then return 0 end
            local current = redis.call('GETRANGE', KEYS[1], from, last)
            local sums = {}
            local at = string.find(current, '[^%z]')
            while at and at <= #uploaded do
              local a, b = string.byte(current, at), string.byte(uploaded, at)
              local high = math.min(15, math.floor(a / 16) + math.floor(b / 16))
              local low = math.min(15, a % 16 + b % 16)
              sums[#sums + 1] = at
              sums[#sums + 1] = high * 16 + low
              at = string.find(current, '[^%z]', at + 1)
            end
            redis.call('SETRANGE', KEYS[1], from, uploaded)
            for i = 1, #sums, 2 do
              redis.call('SETRANGE', KEYS[1], from + sums[i] - 1, string.char(sums[i + 1]))
            end
            return redis.call('BITCOUNT', KEYS[2], from, last)
            """);

    /**
     * Counts the counters above zero in ranges of a counting bitmap, for the fill estimate ({@code BITCOUNT} counts
     * bits, not counters): twice the bytes that are not zero, less those whose high or whose low nibble is zero. About
     * 120 ms a MiB of Redis's time (a Lua pattern match per byte), so callers send 32 KiB at a time. KEYS: bitmap. ARGV: first and last byte of each
     * range. Returns the count, or -1 when the bitmap does not exist.
     */
    static final LuaScript COUNT_NON_ZERO = LuaScript.of("count-non-zero", LuaScript.Result.INTEGER, """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            local counted = 0
            for i = 1, #ARGV, 2 do
              local bytes = redis.call('GETRANGE', KEYS[1], ARGV[i], ARGV[i + 1])
              local _, nonZero = string.gsub(bytes, '[^%z]', '')
              if nonZero > 0 then
                local _, lowOnly = string.gsub(bytes, '[\\1-\\15]', '')
                local _, highOnly = string.gsub(bytes, '[\\16\\32\\48\\64\\80\\96\\112\\128\\144\\160\\176\\192\\208\\224\\240]', '')
                counted = counted + 2 * nonZero - lowOnly - highOnly
              end
            end
            return counted
            """);
}
