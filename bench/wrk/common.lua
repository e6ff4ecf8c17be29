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

-- The scenario knobs of bench/http-load.sh, the same for wrk and loadgen:
-- WRK_CONTENT_TYPE (the POSTs' Content-Type), WRK_PAD (bytes of JSON
-- whitespace in each POST body), WRK_HEADER (one more header, "Name: value",
-- e.g. the session cookie), WRK_CLOSE=1 (Connection: close: wrk opens a new
-- connection for every request).
scenario = {
  content_type = os.getenv("WRK_CONTENT_TYPE") or "application/json",
  pad = string.rep(" ", tonumber(os.getenv("WRK_PAD") or "0") or 0),
  header = os.getenv("WRK_HEADER") or "",
  close = os.getenv("WRK_CLOSE") == "1",
}

-- Adds the scenario's extra header and Connection: close to wrk.headers.
function scenario_headers()
  local name, value = scenario.header:match("^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
  if scenario.close then wrk.headers["Connection"] = "close" end
end

-- The same, as header lines for a request written by hand.
function scenario_lines()
  local lines = ""
  if scenario.header ~= "" then lines = lines .. scenario.header .. "\r\n" end
  if scenario.close then lines = lines .. "Connection: close\r\n" end
  return lines
end
