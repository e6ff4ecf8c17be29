-- POST an MCP tools/call (stateless Streamable HTTP) on every request.
--   wrk -s mcp-call.lua URL -- PATH TOOL [ERA]
-- PATH: the MCP endpoint (/api/agent-context/mcp on portos, /mcp on the
-- rmcp server). TOOL: time_now (the default) or a context tool such as
-- context_profile. ERA: 2025-11-25 (the default: the version header only)
-- or 2026-07-28 (the version, method and name headers, and the per-request
-- `_meta` that revision requires). Agent Tools must be enabled with
-- readPortos granted on portos (PUT /api/settings/agent-context), or every
-- call is a 403.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "common.lua")

function init(args)
  wrk.method = "POST"
  wrk.path = args[1] or "/api/agent-context/mcp"
  local tool = args[2] or "time_now"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  local era = args[3] or "2025-11-25"
  wrk.headers["MCP-Protocol-Version"] = era
  local meta = ""
  if era ~= "2025-11-25" then
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = tool
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"' .. era
      .. '","io.modelcontextprotocol/clientCapabilities":{}}'
  end
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'
    .. tool .. '","arguments":{}' .. meta .. '}}'
end
