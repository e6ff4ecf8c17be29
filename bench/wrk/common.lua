-- Shared by the wrk scripts of bench/http-load.sh: one machine-readable line
-- at the end of a run, which the shell script turns into the table.
--   RESULT requests=N seconds=S rps=R p50_us=A p99_us=B errors=E status_errors=F
-- errors counts socket errors and timeouts; status_errors counts answers
-- with a status above 399 (a 304 is not one).
function done(summary, latency, requests)
  local e = summary.errors
  local socket = e.connect + e.read + e.write + e.timeout
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d errors=%d status_errors=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50.0), latency:percentile(99.0), socket, e.status))
end
