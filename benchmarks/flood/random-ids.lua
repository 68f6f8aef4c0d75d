-- wrk script for flood.sh: GET <url path><id> with a random user id per request, and one machine-readable
-- result line at the end.
--   wrk ... http://host:port/flood/guarded/ -s random-ids.lua -- absent|existing ROWS SEED
-- absent: ids drawn from [10^9, 10^9 + 2^52), never seeded, practically never the same twice;
-- existing: ids drawn from [1, ROWS], all seeded.
-- Each wrk thread draws from its own fixed seed (SEED + thread number), so runs repeat.

local threads_made = 0

function setup(thread)
   thread:set("thread_number", threads_made)
   threads_made = threads_made + 1
end

local first_absent = 1e9
local absent_span = 2 ^ 52

function init(args)
   load_kind = args[1] or "absent"
   rows = tonumber(args[2] or "1000000")
   math.randomseed(tonumber(args[3] or "1") + thread_number)
   if load_kind ~= "absent" and load_kind ~= "existing" then
      error("load must be absent or existing, not " .. tostring(load_kind))
   end
end

function request()
   local id
   if load_kind == "absent" then
      id = first_absent + math.floor(math.random() * absent_span)
   else
      id = math.random(1, rows)
   end
   return wrk.format("GET", wrk.path .. string.format("%.0f", id))
end

function done(summary, latency, requests)
   local errors = summary.errors
   io.write(string.format(
      "FLOOD_RESULT requests=%d seconds=%.3f p50_us=%d p99_us=%d http_errors=%d socket_errors=%d\n",
      summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
      errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
