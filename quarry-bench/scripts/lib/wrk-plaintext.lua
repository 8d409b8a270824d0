-- wrk script of quarry-bench/scripts/plaintext.sh.
--
-- QUARRY_PIPELINE_DEPTH=N (N > 1) sends N requests in each write, as HTTP/1.1 pipelining allows; wrk then counts
-- every response, and records one latency per batch (from the write to the last of its N responses).
-- Without it, or with N = 1, wrk sends its usual single request and this script only adds the report.
--
-- done() prints one machine-readable line, so that the caller does not parse wrk's human units:
--   QUARRY_WRK requests=.. duration_us=.. bytes=.. connect=.. read=.. write=.. status=.. timeout=.. p50_us=.. p99_us=.. max_us=..

local depth = tonumber(os.getenv("QUARRY_PIPELINE_DEPTH") or "1") or 1

if depth > 1 then
    local batch

    init = function(args)
        local one = wrk.format()
        local parts = {}
        for i = 1, depth do
            parts[i] = one
        end
        batch = table.concat(parts)
    end

    request = function()
        return batch
    end
end

-- The q-th percentile of the latencies wrk's histogram holds. wrk 4.1 corrects its histogram for coordinated
-- omission before done() runs, assuming one response per recorded latency; with pipelining that adds entries below
-- the histogram's minimum, which its percentile() never reaches (it then returns 0, as in wrk's own "99% 0.00us").
-- So first find, by bisection, the largest p for which percentile(p) is still found -- the share of the entries
-- it can see (all of them, without pipelining) -- and take the q-th percentile of that share.
local function percentile(stats, q)
    local lo, hi = 0, 100
    for _ = 1, 40 do
        local mid = (lo + hi) / 2
        if stats:percentile(mid) > 0 then
            lo = mid
        else
            hi = mid
        end
    end
    return stats:percentile(lo * q / 100)
end

done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        "QUARRY_WRK requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%.0f p99_us=%.0f max_us=%.0f\n",
        summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
        percentile(latency, 50), percentile(latency, 99), latency.max))
end
