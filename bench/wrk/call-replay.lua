-- POST the same tool call (one constant requestId) on every request: after
-- the first, portos answers from its idempotency store.
--   wrk -s call-replay.lua URL -- PATH REQUEST_ID
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

function init(args)
  wrk.method = "POST"
  wrk.path = args[1] or "/api/cos/tools/call"
  wrk.headers["Content-Type"] = scenario.content_type
  scenario_headers()
  wrk.body = '{"requestId":"' .. (args[2] or "replay-1") .. '","name":"time.now"' .. scenario.pad .. '}'
end
