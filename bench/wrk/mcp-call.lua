-- POST an MCP tools/call (stateless Streamable HTTP) on every request.
--   wrk -s mcp-call.lua URL -- PATH TOOL
-- PATH: the MCP endpoint (/api/agent-context/mcp on portos, /mcp on the
-- rmcp server). TOOL: time_now (the default) or a context tool such as
-- context_profile. Agent Tools must be enabled with readPortos granted on
-- portos (PUT /api/settings/agent-context), or every call is a 403.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

function init(args)
  wrk.method = "POST"
  wrk.path = args[1] or "/api/agent-context/mcp"
  local tool = args[2] or "time_now"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'
    .. tool .. '","arguments":{}}}'
end
