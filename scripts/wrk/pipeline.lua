-- wrk's request script for pipelining, as TechEmpower's plaintext test runs it:
--   wrk ... -s scripts/wrk/pipeline.lua URL -- DEPTH
-- Every write on a connection is DEPTH copies of the request (wrk.format() builds it from the
-- command line: method, path, -H headers), sent back to back before any answer is read.
-- wrk counts every answer in requests/s but records one latency per batch (from the batch's
-- first write to its last answer), and its --latency table is wrong then (0.00us at 90 % and
-- 99 %): bench reports no latency for such a run, and its report's caveats say why.

init = function(args)
   local depth = tonumber(args[1]) or 1
   local r = {}
   for i = 1, depth do
      r[i] = wrk.format()
   end
   req = table.concat(r)
end

request = function()
   return req
end
