-- GET with If-None-Match set to the current ETag: every answer is a 304.
--   wrk -s get-304.lua URL -- PATH ETAG
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

function init(args)
  wrk.method = "GET"
  wrk.path = args[1] or "/api/cos/tools"
  wrk.headers["If-None-Match"] = args[2]
  scenario_headers()
end
